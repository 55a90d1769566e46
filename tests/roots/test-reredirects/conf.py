# sphinx-reredirects' own test project, switched: the extension line changed, nothing else
extensions = ["sphinx_relocate"]
exclude_patterns = ["_build"]
html_theme = "basic"

redirects = {
    "setup": "install.html",
    "install/requirements": "https://web.com/docs/requirements.html",
    "faq/old": "two.html",
    "faq/deep/gone": "../one.html#the-answer",
    "news": "/rn.html",
    "faq/*": "https://new.com/$source.html",
    "*all": "go-to-${source}",
}
