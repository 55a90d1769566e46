project = "templates"
extensions = ["sphinx_relocate"]
templates_path = ["_templates"]
html_theme = "alabaster"
html_additional_pages = {"landing": "landing.html"}
