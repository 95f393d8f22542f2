"""tf.train.Example wire bytes, tf.parse_example, and the string ops (decode_csv,
string_to_number, decode_raw, read_file, string_split)."""

import numpy as np
import pytest

import tensorfleet as tf


def _run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


def _varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):  # length-delimited field (wire type 2)
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def test_example_bytes_match_hand_computed_wire_encoding():
    ex = tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 300]))}))
    # Int64List.value is packed: field 1, varints 01 and ac 02 (300).
    int64_list = _field(1, b"\x01\xac\x02")
    feature = _field(3, int64_list)                       # Feature.int64_list = 3
    entry = _field(1, b"a") + _field(2, feature)          # map entry: key 1, value 2
    expected = _field(1, _field(1, entry))                # Example.features, Features.feature
    assert expected == bytes.fromhex("0a0e0a0c0a016112071a050a0301ac02")
    assert ex.SerializeToString() == expected
    # float_list = 2 with a packed little-endian float; bytes_list = 1, unpacked.
    f = tf.train.Feature(float_list=tf.train.FloatList(value=[1.5]))
    assert f.SerializeToString() == _field(2, _field(1, bytes.fromhex("0000c03f")))
    b = tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"x", b"yz"]))
    assert b.SerializeToString() == _field(1, _field(1, b"x") + _field(1, b"yz"))
    seq = tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={
        "s": tf.train.FeatureList(feature=[b])}))
    assert seq.SerializeToString() == _field(2, _field(1, _field(1, b"s") + _field(
        2, _field(1, b.SerializeToString()))))


def _example(**features):
    feats = {}
    for k, v in features.items():
        if isinstance(v[0], bytes):
            feats[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        elif isinstance(v[0], float):
            feats[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        else:
            feats[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


def test_parse_example_dense_and_sequence_features():
    ser = [_example(x=[1.0, 2.0], n=[5], s=[b"a", b"b", b"c"]), _example(x=[3.0, 4.0])]
    out = tf.parse_example(tf.constant(ser), {
        "x": tf.FixedLenFeature([2], tf.float32),
        "n": tf.FixedLenFeature([], tf.int64, default_value=-1),
        "s": tf.FixedLenSequenceFeature([], tf.string, allow_missing=True),
    })
    assert out["x"].shape.as_list() == [2, 2]
    v = _run(out)
    np.testing.assert_array_equal(v["x"], [[1, 2], [3, 4]])
    assert v["x"].dtype == np.float32
    np.testing.assert_array_equal(v["n"], [5, -1])
    assert v["s"].tolist() == [[b"a", b"b", b"c"], [b"", b"", b""]]


def test_parse_example_sparse_features():
    ser = [_example(ids=[7, 3], w=[0.5, 0.25], i=[4, 1]), _example(), _example(ids=[9])]
    out = tf.parse_example(ser, {
        "ids": tf.VarLenFeature(tf.int64),
        "sp": tf.SparseFeature(index_key="i", value_key="w", dtype=tf.float32, size=6),
    })
    assert isinstance(out["ids"], tf.SparseTensor)
    v = _run(out)
    ids, sp = v["ids"], v["sp"]
    assert ids.indices.tolist() == [[0, 0], [0, 1], [2, 0]]
    assert ids.values.tolist() == [7, 3, 9]
    assert ids.dense_shape.tolist() == [3, 2]
    # Sorted by index: (i=1, 0.25) before (i=4, 0.5).
    assert sp.indices.tolist() == [[0, 1], [0, 4]]
    assert sp.values.tolist() == [0.25, 0.5]
    assert sp.dense_shape.tolist() == [3, 6]


def test_parse_single_example_has_no_batch_dimension():
    out = tf.parse_single_example(_example(x=[1.0, 2.0], ids=[4, 5, 6]), {
        "x": tf.FixedLenFeature([2], tf.float32), "ids": tf.VarLenFeature(tf.int64)})
    v = _run(out)
    np.testing.assert_array_equal(v["x"], [1, 2])
    assert v["ids"].indices.tolist() == [[0], [1], [2]]
    assert v["ids"].dense_shape.tolist() == [3]


def test_parse_example_errors_name_the_feature():
    ser = tf.placeholder(tf.string, [None])
    out = tf.parse_example(ser, {"x": tf.FixedLenFeature([2], tf.float32)})
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match="x .* is required"):
            s.run(out, {ser: [_example(y=[1])]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Key: x.*Values size: 3"):
            s.run(out, {ser: [_example(x=[1.0, 2.0, 3.0])]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Key: x.*Expected type: "
                                                                 "float, Actual type: int64"):
            s.run(out, {ser: [_example(x=[1, 2])]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example"):
            s.run(out, {ser: [b"\xff\xff\xff"]})
    with pytest.raises(ValueError, match="allow_missing"):
        tf.parse_example(ser, {"s": tf.FixedLenSequenceFeature([], tf.int64)})
    with pytest.raises(ValueError, match="default_value has 3 elements"):
        tf.parse_example(ser, {"x": tf.FixedLenFeature([2], tf.float32, [1.0, 2.0, 3.0])})


def test_decode_csv_types_defaults_quotes_and_select_cols():
    recs = tf.constant(['1,"a,""b""",2.5,7', '2,,,8', '3,c,NA,9'])
    cols = tf.decode_csv(recs, [[0], ["z"], [-1.0], tf.constant([], tf.int64)],
                         na_value="NA")
    a, b, c, d = _run(cols)
    assert a.tolist() == [1, 2, 3] and a.dtype == np.int32
    assert b.tolist() == [b'a,"b"', b"z", b"c"]
    np.testing.assert_allclose(c, [2.5, -1.0, -1.0])
    assert d.tolist() == [7, 8, 9] and d.dtype == np.int64
    sel = tf.decode_csv(tf.constant([["x|1|y"]]), [[""], [""]], field_delim="|",
                        select_cols=[0, 2])
    first, third = _run(sel)
    assert first.tolist() == [[b"x"]] and third.tolist() == [[b"y"]]


@pytest.mark.parametrize("record,match", [
    ("1,2", "Expect 3 fields but have 2 in record 0"),
    ("1,,3", "Field 1 is required but missing in record 0"),
    ("1,x,3", "Field 1 in record 0 is not a valid int64: x"),
    ('1,"2"x,3', "Quote inside a string"),
    ('1,2"",3', "Unquoted fields cannot have quotes"),
])
def test_decode_csv_errors(record, match):
    rec = tf.placeholder(tf.string, [])
    cols = tf.decode_csv(rec, [[0], tf.constant([], tf.int64), [0]])
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match=match):
            s.run(cols, {rec: record})


def test_decode_csv_bad_arguments():
    with pytest.raises(ValueError, match="single character"):
        tf.decode_csv("a", [[""]], field_delim="::")
    with pytest.raises(ValueError, match="strictly increasing"):
        tf.decode_csv("a", [[""], [""]], select_cols=[2, 1])


def test_string_to_number_and_decode_raw():
    v = _run([tf.string_to_number(["1.5", "-2"]),
              tf.string_to_number([["7"]], out_type=tf.int64),
              tf.decode_raw(tf.constant([b"\x01\x00\x02\x00", b"\xff\xff\x00\x01"]), tf.int16),
              tf.decode_raw(b"\x00\x01", tf.uint16, little_endian=False)])
    np.testing.assert_allclose(v[0], [1.5, -2.0])
    assert v[1].tolist() == [[7]] and v[1].dtype == np.int64
    assert v[2].tolist() == [[1, 2], [-1, 256]]
    assert v[3].tolist() == [1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="could not correctly convert "
                                                             "string: abc"):
        _run(tf.string_to_number(["abc"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size"):
        _run(tf.decode_raw([b"\x00\x00", b"\x00\x00\x00\x00"], tf.int16))


def test_read_file(tmp_path):
    p = tmp_path / "blob.bin"
    p.write_bytes(b"\x00contents\xff")
    assert _run(tf.read_file(str(p))) == b"\x00contents\xff"
    with pytest.raises(tf.errors.NotFoundError, match="nope.bin"):
        _run(tf.read_file(str(tmp_path / "nope.bin")))


def test_string_split_returns_sparse_tensor():
    st = tf.string_split(["a b  c", "", "d"])
    assert isinstance(st, tf.SparseTensor)
    v = _run(st)
    assert v.indices.tolist() == [[0, 0], [0, 1], [0, 2], [2, 0]]
    assert v.values.tolist() == [b"a", b"b", b"c", b"d"]
    assert v.dense_shape.tolist() == [3, 3]
    keep = _run(tf.string_split(["a,,b;c"], delimiter=",;", skip_empty=False))
    assert keep.values.tolist() == [b"a", b"", b"b", b"c"]
    chars = _run(tf.string_split(["ab"], delimiter=""))
    assert chars.values.tolist() == [b"a", b"b"]
