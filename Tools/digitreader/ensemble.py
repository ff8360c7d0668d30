"""One ONNX file whose outputs are the mean of several trainings' (other seeds err elsewhere)."""
import numpy as np


def average(paths, path):
    """Writes to `path` the mean of the networks in `paths`, which share one input and one output
    (name and shape, the first file's): each graph is copied under a prefix, all read the same
    input, and a Sum times 1/n is the output. Only Sum and Mul are added, which OpenCV 4.6 imports.
    For the sequence reader the mean of the columns' scores is a geometric pool of the seeds'
    softmaxes; its temperature is fitted again afterwards."""
    import onnx
    from onnx import helper, numpy_helper
    first = onnx.load(paths[0])
    input_info, output_info = first.graph.input[0], first.graph.output[0]
    nodes, initializers, outputs = [], [], []
    for index, source in enumerate(paths):
        graph = onnx.compose.add_prefix(onnx.load(source), f"m{index}_").graph
        for node in graph.node:
            node.input[:] = [input_info.name if name == f"m{index}_{input_info.name}" else name
                             for name in node.input]
        nodes += graph.node
        initializers += graph.initializer
        outputs.append(graph.output[0].name)
    initializers.append(numpy_helper.from_array(np.array([1 / len(paths)], np.float32), "share"))
    nodes.append(helper.make_node("Sum", outputs, ["total"]))
    nodes.append(helper.make_node("Mul", ["total", "share"], [output_info.name]))
    graph = helper.make_graph(nodes, f"mean of {len(paths)} trainings", [input_info], [output_info], initializers)
    model = helper.make_model(graph, opset_imports=first.opset_import)
    model.ir_version = first.ir_version
    onnx.checker.check_model(model)
    onnx.save(model, path)
