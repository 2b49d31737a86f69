"""The built-in mutation operators; importing this package registers them (one module
per kind of project)."""
