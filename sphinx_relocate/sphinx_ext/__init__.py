"""The build side: Sphinx event handlers that apply the core to a build."""
