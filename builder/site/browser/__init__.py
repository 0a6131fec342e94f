"""What the in-browser command builder loads: the reduced Pyodide runtime and our code zip
(:mod:`.bundle`), the worker's Python half (:mod:`.worker_glue`), each recipe's builder data and the
stored views of the first two clicks from each page's default (:mod:`.stored_clicks`)."""
