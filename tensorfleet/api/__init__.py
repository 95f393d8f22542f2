"""The public namespaces, each declared in one module: ``tf`` (the top level), ``nn``, ``train``,
``layers`` ... A namespace module imports every name it exports from the module that defines
it and lists them in ``__all__``; it holds no code of its own."""
