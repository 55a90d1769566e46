project = "sidebars"
extensions = ["sphinx_relocate"]
html_theme = "alabaster"
html_sidebars = {
    "install": ["sourcelink.html"],
    "howto/*": ["searchbox.html"],
    "faq": [],
    "recipes/*": ["relations.html"],
    "kept": ["searchbox.html"],
    "guide/kept": ["sourcelink.html"],
}
