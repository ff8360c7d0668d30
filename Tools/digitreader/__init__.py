"""Training data, model and export for the sequence digit reader (Tools/train-digit-reader.py)."""
