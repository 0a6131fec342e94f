"""``vllm-recipes add-benchmark``: measured results read from benchmark files, checked, and stored beside the
recipe (``models/<org>/<repo>.benchmarks.json``).

:mod:`.source` reads one file without trusting it (no link followed, a size cap, strict JSON without NaN or
Infinity); :mod:`.formats` reads a ``vllm bench serve --save-result`` file or an InferenceX result row;
:mod:`.command` checks each against the recipe (the model, the selection it names, the figures' bounds)
and writes the results file only when every file is good.
"""
