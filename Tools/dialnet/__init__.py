"""Training data and model for the pointer dial network (Tools/train-dial-reader.py)."""
