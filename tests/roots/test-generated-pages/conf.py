extensions = ["sphinx_relocate"]
templates_path = ["_templates"]
html_additional_pages = {"contents": "contents.html"}
