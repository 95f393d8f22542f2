"""tf.profiler: parameters and float operations by scope and by op type, against what
TensorFlow 2.21's tfprof reports for the same graph; op times from a traced step; the
op log file; the option builder; the errors."""

import numpy as np
import pytest

import tensorfleet as tf

P = tf.profiler
B = P.ProfileOptionBuilder


def _model():
    x = tf.constant(np.ones((2, 8, 8, 3), np.float32), name="images")
    with tf.variable_scope("conv"):
        k = tf.get_variable("kernel", [3, 3, 3, 4], initializer=tf.ones_initializer())
        bias = tf.get_variable("bias", [4], initializer=tf.zeros_initializer())
        h = tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), bias)
        h = tf.nn.max_pool(tf.nn.relu(h), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    with tf.variable_scope("fc"):
        w = tf.get_variable("w", [64, 10], initializer=tf.ones_initializer())
        logits = tf.matmul(tf.reshape(h, [2, 64]), w)
    sm = tf.nn.softmax(logits)
    loss = tf.reduce_sum(tf.squared_difference(sm, tf.zeros([2, 10])), name="loss")
    tf.get_variable("step", [], initializer=tf.zeros_initializer(), trainable=False)
    return loss


def _quiet(options):
    return B(options).with_empty_output().build()


def _chain(result):
    out, node = [], result
    while node.children:
        node = node.children[0]
        out.append((node.name, node.float_ops, node.total_float_ops,
                    [g.name for g in node.graph_nodes]))
    return out


# The expected values below are what TensorFlow 2.21 (tf.compat.v1.profiler.profile)
# reports for the same graph.
def test_trainable_parameters_by_scope():
    with tf.Graph().as_default() as g:
        _model()
        r = P.profile(g, options=_quiet(B.trainable_variables_parameter()))
    assert isinstance(r, P.GraphNodeProto) and r.name == "_TFProfRoot"
    assert r.total_parameters == 752 and r.total_definition_count == 6
    assert [(c.name, c.total_parameters, [(d.name, d.parameters) for d in c.children])
            for c in r.children] == [
        ("conv", 112, [("conv/bias", 4), ("conv/kernel", 108)]),
        ("fc", 640, [("fc/w", 640)])]


def test_float_operations_by_scope_and_by_op_type():
    with tf.Graph().as_default() as g:
        _model()
        f = P.profile(g, options=_quiet(B.float_operation()))
        o = P.profile(g, cmd="op", options=_quiet(B.float_operation()))
    assert f.total_float_ops == 31391 and f.total_definition_count == 8
    assert [(c.name, c.float_ops, c.total_float_ops) for c in f.children] == [
        ("conv/Conv2D", 27648, 27648), ("fc/MatMul", 2560, 2560),
        ("conv/BiasAdd", 512, 512), ("conv/MaxPool", 512, 512), ("Softmax", 100, 100),
        ("SquaredDifference", 40, 40), ("loss", 19, 19)]
    conv = f.children[0]
    assert [d.size for d in conv.input_shapes[1].dim] == [3, 3, 3, 4]
    assert isinstance(o, P.MultiGraphNodeProto) and o.total_float_ops == 31391
    assert _chain(o) == [
        ("Conv2D", 27648, 31391, ["conv/Conv2D"]), ("MatMul", 2560, 3743, ["fc/MatMul"]),
        ("BiasAdd", 512, 1183, ["conv/BiasAdd"]), ("MaxPool", 512, 671, ["conv/MaxPool"]),
        ("Softmax", 100, 159, ["Softmax"]),
        ("SquaredDifference", 40, 59, ["SquaredDifference"]), ("Sum", 19, 19, ["loss"])]


def test_depth_start_and_hide_filters():
    with tf.Graph().as_default() as g:
        _model()
        d = P.profile(g, options=_quiet(B(B.trainable_variables_parameter())
                                        .with_max_depth(1).build()))
        s = P.profile(g, options=_quiet(B(B.float_operation()).with_node_names(
            start_name_regexes=["conv"]).build()))
        h = P.profile(g, options=_quiet(B(B.float_operation()).with_node_names(
            hide_name_regexes=["conv/.*"]).account_displayed_op_only(False).build()))
    assert d.total_parameters == 0 and not d.children
    assert s.total_float_ops == 28672
    assert [(c.name, c.total_float_ops) for c in s.children] == [
        ("conv/Conv2D", 27648), ("conv/BiasAdd", 512), ("conv/MaxPool", 512)]
    assert h.total_float_ops == 31391
    assert [(c.name, c.total_float_ops) for c in h.children] == [
        ("fc/MatMul", 2560), ("Softmax", 100), ("SquaredDifference", 40), ("loss", 19)]


def test_op_times_from_traced_steps():
    with tf.Graph().as_default() as g:
        loss = _model()
        profiler = P.Profiler(g)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(2):
                meta = tf.RunMetadata()
                sess.run(loss, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                         run_metadata=meta)
                profiler.add_step(step, meta)
        opts = B(B.time_and_memory()).with_min_memory(0).with_empty_output()
        by_scope = profiler.profile_name_scope(opts.build())
        by_type = profiler.profile_operations(opts.with_step(1).build())
        all_nodes = profiler.profile_name_scope(
            B(B.time_and_memory(min_micros=0)).with_min_memory(0).with_empty_output()
            .select(["micros", "occurrence"]).build())
    def walk(n):
        yield n
        for c in n.children:
            yield from walk(c)
    timed = {n.name: n for n in walk(all_nodes)}
    assert timed["conv/Conv2D"].run_count == 2 and timed["conv/Conv2D"].devices
    assert "conv/kernel/Initializer/ones" not in timed or \
        timed["conv/kernel/Initializer/ones"].run_count == 0
    assert by_scope.total_exec_micros > 0
    assert by_scope.total_exec_micros == sum(c.total_exec_micros for c in by_scope.children)
    assert all(n.total_exec_micros >= 1 for n in walk(by_scope) if n.name != "_TFProfRoot")
    # The conv, its bias add and its ReLU run as one kernel, timed under the ReLU.
    assert "Relu" in [name for name, *_ in _chain(by_type)]


def test_write_op_log(tmp_path):
    with tf.Graph().as_default() as g:
        _model()
        extra = P.OpLogProto()
        extra.log_entries.add(name="loss", types=["my_type"], float_ops=7)
        path = P.write_op_log(g, str(tmp_path), op_log=extra)
        r = P.profile(g, op_log=extra, options=_quiet(B(B.float_operation())
                                                      .with_accounted_types(["my_type"])
                                                      .build()))
    log = P.OpLogProto.FromString(open(path, "rb").read())
    entries = {e.name: e for e in log.log_entries}
    assert list(entries["fc/w"].types) == ["_trainable_variables"]
    assert entries["conv/Conv2D"].float_ops == 27648
    assert list(entries["loss"].types) == ["my_type"] and entries["loss"].float_ops == 7
    trace = entries["conv/Conv2D"].code_def.traces[-1]
    assert log.id_to_string[trace.file_id].endswith("test_analyzer.py")
    assert r.total_float_ops == 7 and [c.name for c in r.children] == ["loss"]


def test_option_builder_matches_tensorflow():
    built = (B().with_max_depth(3).with_min_memory(1, 2, 3, 4).with_min_execution_time(5, 6, 7)
             .with_min_parameters(8).with_min_occurrence(9).with_min_float_operations(10)
             .with_accounted_types(["a"]).with_node_names(["s"], ["sh"], ["h"], ["t"])
             .account_displayed_op_only(True).order_by("micros").select(["params"])
             .with_step(2).with_file_output("/x/y").build())
    assert built == {
        "max_depth": 3, "min_bytes": 1, "min_micros": 5, "min_params": 8,
        "min_float_ops": 10, "min_occurrence": 9, "order_by": "micros",
        "account_type_regexes": ["a"], "start_name_regexes": ["s"],
        "trim_name_regexes": ["t"], "show_name_regexes": ["sh"], "hide_name_regexes": ["h"],
        "account_displayed_op_only": True, "select": ["params"], "step": 2,
        "output": "file:outfile=/x/y", "min_peak_bytes": 2, "min_residual_bytes": 3,
        "min_output_bytes": 4, "min_accelerator_micros": 6, "min_cpu_micros": 7}
    assert B().build()["max_depth"] == 100 and B().build()["select"] == ["micros"]


def test_report_to_a_file_and_errors(tmp_path):
    with tf.Graph().as_default() as g:
        _model()
        out = tmp_path / "report.txt"
        P.profile(g, options=B(B.float_operation()).with_file_output(str(out)).build())
        assert "conv/Conv2D (27648/27648 flops)" in out.read_text()
        with pytest.raises(ValueError, match="view 'code' is not supported"):
            P.profile(g, cmd="code")
        with pytest.raises(ValueError, match="not supported by tensorfleet"):
            P.profile(g, options=B().with_timeline_output("t.json").build())
        with pytest.raises(ValueError, match="Unknown profiler option 'min_bogus'"):
            P.profile(g, options={"min_bogus": 1})
        with pytest.raises(ValueError, match="no step stats"):
            P.Profiler(g).add_step(0, tf.RunMetadata())
        with pytest.raises(ValueError, match="run_meta"):
            P.write_op_log(g, str(tmp_path), run_meta=tf.RunMetadata())


def test_advise_reports_the_expensive_operations():
    with tf.Graph().as_default() as g:
        loss = _model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            meta = tf.RunMetadata()
            sess.run(loss, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=meta)
        advice = P.advise(g, meta)
        untraced = P.advise(g)
        with pytest.raises(ValueError, match="Unknown checker 'Nope'"):
            P.advise(g, meta, options={"Nope": {}})
    assert isinstance(advice, P.AdviceProto)
    # TensorFlow 2.21 on the CPU gives these three entries (JobChecker gives none).
    assert sorted(advice.checkers) == ["AcceleratorUtilizationChecker",
                                       "ExpensiveOperationChecker", "OperationChecker"]
    reports = advice.checkers["ExpensiveOperationChecker"].reports
    lines = reports[0].split("\n")
    assert lines[0].startswith("top 1 operation type: ") and len(lines) == 3
    assert ", accelerator: 0us, total: " in lines[0] and lines[0].endswith("%)")
    assert list(untraced.checkers["ExpensiveOperationChecker"].reports) == []
