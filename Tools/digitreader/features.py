"""The cell classifier's penultimate layer as a second ONNX output, `features`.

The reader's per-meter memory (Sources/Plugins/DigitReader/DigitMemory.swift) compares a digit's
cell with the cells of the meter's confirmed readings in that layer: the last one before the digit
scores, where cells of one digit lie close. Exposing it renames a tensor and adds a graph output:
no operator is added and no weight changes, and OpenCV 4.6 forwards both outputs by name.
"""


def expose_features(path, name="features"):
    """Rewrites the single-network classifier at `path` so that the input of its last Gemm (the
    digit scores' layer) is also an output called `name`. A file that has it already is left as
    it is."""
    import onnx
    from onnx import helper

    model = onnx.load(path)
    graph = model.graph
    if any(output.name == name for output in graph.output):
        return
    scores = graph.output[0].name
    last = [node for node in graph.node if scores in node.output]
    if len(last) != 1 or last[0].op_type != "Gemm":
        raise SystemExit(f"{path}: its output {scores} does not come from one Gemm; not a single cell classifier")
    tensor = last[0].input[0]
    for node in graph.node:
        node.output[:] = [name if output == tensor else output for output in node.output]
        node.input[:] = [name if value == tensor else value for value in node.input]
    weights = next(init.dims for init in graph.initializer if init.name == last[0].input[1])
    transposed = any(attribute.name == "transB" and attribute.i for attribute in last[0].attribute)
    width = weights[1] if transposed else weights[0]
    graph.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, ["n", width]))
    onnx.checker.check_model(model)
    onnx.save(model, path)
