"""What the in-browser command builder loads: the reduced Pyodide runtime and the resolver zip
(:mod:`.bundle`), the worker's Python half (:mod:`.worker_glue`), each recipe's builder data and the
stored views one click from each page's default (:mod:`.first_clicks`)."""
