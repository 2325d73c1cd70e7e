"""Sphinx configuration of the detector's documentation (``docs/``).

Build it with ``python -m sphinx -W -b html docs build/docs`` (the ``docs``
extra installs Sphinx and MyST); the test run builds it the same way.
"""

project = "Axon repetition detector"
author = "The Axon developers"
copyright = "2026, " + author

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
]

# The pages are Markdown (MyST), the docstrings reStructuredText.
source_suffix = {".md": "markdown"}
myst_enable_extensions = ["colon_fence", "deflist"]
# Headings up to level 3 get anchors, so that `page.md#section` links work.
myst_heading_anchors = 3

exclude_patterns = ["_build"]
# Nothing is shipped beside the pages: the testbench and bench.json are
# linked from the repository.
html_extra_path = []

# The docstrings are NumPy style, as Amaranth's; a signature's members are
# listed like parameters.
napoleon_google_docstring = False
napoleon_custom_sections = [(name, "params_style") for name in (
    "Members", "Members (from the asking side)", "Members (from the host's side)")]

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
# Amaranth's own objects appear in signatures; link them to its docs when
# online, and build offline without complaint.
intersphinx_mapping = {}

html_theme = "alabaster"
html_title = project
html_static_path = []
