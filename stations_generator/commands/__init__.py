"""Click commands kept out of ``cli.py``; the main group registers them with ``add_command``."""
