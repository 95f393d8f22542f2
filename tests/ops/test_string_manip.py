"""tf.strings and the TF 1.x top-level string names: values against Python/hand references.

The legacy hash bucket ids are TensorFlow 1.15's for the same strings.
"""

import base64
import json
import re
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.serialization import graph_to_plain, import_graph_def
from tensorfleet.kernels.numpy.string_manip_kernels import legacy_hash64


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_length_bytes_and_utf8_chars():
    words = ["héllo", "", "ab"]
    assert _run(tf.strings.length(words)).tolist() == [len(w.encode()) for w in words]
    out = _run(tf.strings.length(words, unit="UTF8_CHAR"))
    assert out.tolist() == [len(w) for w in words] and out.dtype == np.int32
    with pytest.raises(ValueError, match="unit"):
        tf.strings.length(words, unit="CHAR")


def test_substr_broadcast_negative_pos_and_errors():
    out = _run(tf.strings.substr(["hello", "world"], [1, -3], [2, 10]))
    assert out.tolist() == [b"el", b"rld"]
    assert _run(tf.substr(tf.constant([["abcdef"]]), 2, 3)).tolist() == [[b"cde"]]
    assert _run(tf.strings.substr(["héllo"], 1, 2, unit="UTF8_CHAR")).tolist() == \
        ["él".encode()]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        _run(tf.strings.substr(["abc"], 4, 1))


def test_join_and_reduce_join():
    out = _run(tf.strings.join([["a", "b"], "x", ["c", "d"]], separator="+"))
    assert out.tolist() == [b"a+x+c", b"b+x+d"]
    assert _run(tf.string_join(["p", "q"])) == b"pq"
    grid = [["a", "b", "c"], ["d", "e", "f"]]
    assert _run(tf.strings.reduce_join(grid, axis=1, separator="-")).tolist() == \
        [b"a-b-c", b"d-e-f"]
    assert _run(tf.reduce_join(grid)) == b"abcdef"
    kept = _run(tf.strings.reduce_join(grid, 0, keep_dims=True))
    assert kept.shape == (1, 3) and kept.tolist() == [[b"ad", b"be", b"cf"]]
    assert _run(tf.strings.reduce_join(grid, axis=-1)).tolist() == [b"abc", b"def"]
    cube = np.array([[[b"1", b"2"], [b"3", b"4"]], [[b"5", b"6"], [b"7", b"8"]]], dtype=object)
    assert _run(tf.strings.reduce_join(cube, axis=[0, 2])).tolist() == [b"1256", b"3478"]


def test_regex_full_match_and_replace():
    words = ["abc123", "abc", "123"]
    got = _run(tf.strings.regex_full_match(words, r"[a-z]+\d*"))
    assert got.tolist() == [bool(re.fullmatch(r"[a-z]+\d*", w)) for w in words]
    out = _run(tf.strings.regex_replace(["aa bb", "cab"], "a(.)", r"<\1\0>"))
    assert out.tolist() == [b"<aaa> bb", b"c<bab>"]
    assert _run(tf.regex_replace(["aa bb", "cab"], "a", "x", replace_global=False)).tolist() \
        == [b"xa bb", b"cxb"]
    assert _run(tf.strings.regex_replace(["a.b"], r"\.", r"\\")).tolist() == [b"a\\b"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="rewrite"):
        _run(tf.strings.regex_replace(["ab"], "a", r"\2"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="pattern"):
        _run(tf.strings.regex_full_match(["ab"], "(a"))


def test_strip_upper_lower():
    assert _run(tf.strings.strip(["  a b \n", "\tc"])).tolist() == [b"a b", b"c"]
    assert _run(tf.string_strip([" x "])).tolist() == [b"x"]
    assert _run(tf.strings.upper(["abC", "é"])).tolist() == [b"ABC", "é".encode()]
    assert _run(tf.strings.upper(["é"], encoding="utf-8")).tolist() == ["É".encode()]
    assert _run(tf.strings.lower(["AbC"])).tolist() == [b"abc"]


def test_base64_web_safe():
    data = [b"hello?>", b"ab", b"\xff\xfe\xfd"]
    enc = _run(tf.encode_base64(data))
    assert enc.tolist() == [base64.urlsafe_b64encode(d).rstrip(b"=") for d in data]
    padded = _run(tf.strings.as_string(tf.constant([1])))  # as_string is reachable too
    assert padded.tolist() == [b"1"]
    assert _run(tf.encode_base64(data, pad=True)).tolist() == \
        [base64.urlsafe_b64encode(d) for d in data]
    assert _run(tf.decode_base64(["aGVsbG8_Pg", "YWI=", "YWI", "__79"])).tolist() == \
        [b"hello?>", b"ab", b"ab", b"\xff\xfe\xfd"]
    for bad in ["a+b/", "YWI==", "Y", "YW I"]:
        with pytest.raises(tf.errors.InvalidArgumentError, match="base64"):
            _run(tf.decode_base64([bad]))


def test_to_number_and_hash_buckets():
    assert _run(tf.strings.to_number(["1.5", "-2"])).tolist() == [1.5, -2.0]
    assert _run(tf.strings.to_number(input=["7"], out_type=tf.int64)).tolist() == [7]
    words = ["hello", "", "a longer string here!"]
    assert _run(tf.strings.to_hash_bucket(words, 1000)).tolist() == [938, 899, 713]
    assert _run(tf.string_to_hash_bucket(words, 1000)).tolist() == [938, 899, 713]
    assert _run(tf.strings.to_hash_bucket_fast(words, 10)).dtype == np.int64
    assert legacy_hash64(b"") % 1000 == 899
    with pytest.raises(ValueError, match="num_buckets"):
        tf.strings.to_hash_bucket(words, 0)


def test_strings_split_sparse():
    sp = _run(tf.strings.split(["a  b", " c d e "]))
    assert sp.indices.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]]
    assert sp.values.tolist() == [b"a", b"b", b"c", b"d", b"e"]
    assert sp.dense_shape.tolist() == [2, 3]
    sp = _run(tf.strings.split(["a,,b", "c,d", ""], sep=","))
    assert sp.values.tolist() == [b"a", b"", b"b", b"c", b"d", b""]
    assert sp.indices.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0]]
    sp = _run(tf.strings.split(source=["a b c d"], maxsplit=1))
    assert sp.values.tolist() == [b"a", b"b c d"] and sp.dense_shape.tolist() == [1, 2]
    with pytest.raises(ValueError, match="RaggedTensor"):
        tf.strings.split(["a"], result_type="RaggedTensor")


def test_string_ops_in_dataset_map():
    ds = tf.data.Dataset.from_tensor_slices(["  A b ", "C  "]).map(
        lambda s: tf.strings.lower(tf.strings.strip(s)))
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [sess.run(nxt), sess.run(nxt)] == [b"a b", b"c"]


def test_ops_survive_graph_serialization(capsys):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [None], name="x")
        tf.print("v", x, {"a": x}, output_stream=sys.stdout, name="pr")
        tf.strings.format("{}!", x, name="fmt")
        tf.strings.reduce_join(tf.as_string(tf.reshape(x, [-1, 1])), axis=[0], name="rj")
        tf.strings.regex_replace(tf.as_string(x), "1", "one", name="rr")
        tf.encode_base64(tf.as_string(x), pad=True, name="b64")
    g2 = import_graph_def(json.loads(json.dumps(graph_to_plain(g))))
    with g2.as_default(), tf.Session() as sess:
        sess.run("pr", {"x:0": [1, 2]})
        got = sess.run(["fmt:0", "rj:0", "rr:0", "b64:0"], {"x:0": [1, 2]})
    assert capsys.readouterr().out == "v [1 2] {'a': [1 2]}\n"
    assert got[0] == b"[1 2]!" and got[1].tolist() == [b"12"]
    assert got[2].tolist() == [b"one", b"2"] and got[3].tolist() == [b"MQ==", b"Mg=="]


def test_as_string_formats_like_tensorflow():
    # Expected strings are TensorFlow 1.15's for the same calls.
    assert _run(tf.as_string([1.5, -2.0, float("nan"), float("inf")])).tolist() == \
        [b"1.500000", b"-2.000000", b"nan", b"inf"]
    assert _run(tf.as_string([1.5, 0.000123], shortest=True)).tolist() == [b"1.5", b"0.000123"]
    assert _run(tf.as_string([1.5], precision=3, scientific=True)).tolist() == [b"1.500e+00"]
    assert _run(tf.as_string([1.5], width=12, fill="0")).tolist() == [b"00001.500000"]
    assert _run(tf.as_string([1.5], width=12, fill="-")).tolist() == [b"1.500000    "]
    assert _run(tf.as_string([1.5], width=12)).tolist() == [b"    1.500000"]
    assert _run(tf.as_string([3, -4], width=4, fill="0")).tolist() == [b"0003", b"-004"]
    assert _run(tf.as_string([True, False], width=6)).tolist() == [b"true", b"false"]
    assert _run(tf.as_string(np.array([1.5]), precision=10)).tolist() == [b"1.5000000000"]
    assert _run(tf.strings.as_string([123456.789], shortest=True)).tolist() == [b"123457"]
    with pytest.raises(ValueError, match="Fill argument"):
        tf.as_string([1.5], fill="x")
    with pytest.raises(ValueError, match="apply to floats"):
        tf.as_string([3], precision=2)
    with pytest.raises(ValueError, match="both scientific and shortest"):
        tf.as_string([1.5], scientific=True, shortest=True)


def test_write_file_then_read_file(tmp_path):
    path = str(tmp_path / "sub" / "dir" / "out.bin")
    data = tf.placeholder(tf.string, [])
    op = tf.write_file(path, data)
    assert isinstance(op, tf.Operation) and tf.io.write_file is tf.write_file
    with tf.Session() as sess:
        sess.run(op, {data: b"first"})
        sess.run(op, {data: b"\x00second"})
        assert sess.run(tf.read_file(path)) == b"\x00second"
    with open(path, "rb") as f:
        assert f.read() == b"\x00second"
    with pytest.raises(ValueError, match="scalar"):
        tf.write_file([path], "x")
    assert tf.io.FIFOQueue is tf.FIFOQueue and tf.io.write_graph is tf.train.write_graph
