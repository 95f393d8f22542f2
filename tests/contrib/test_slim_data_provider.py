"""slim's data pipeline: ``slim.dataset.Dataset`` + ``tfexample_decoder`` +
``dataset_data_provider.DatasetDataProvider`` reading TFRecord files of Examples."""

import io

import numpy as np
import pytest
from PIL import Image as PILImage

import tensorfleet as tf

slim = tf.contrib.slim


def _png(value):
    buf = io.BytesIO()
    PILImage.fromarray(np.full((2, 3, 3), value, np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


def _write(path, labels):
    with tf.python_io.TFRecordWriter(path) as w:
        for label in labels:
            ex = tf.train.Example(features=tf.train.Features(feature={
                "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[_png(label * 10)])),
                "image/format": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"png"])),
                "image/class/label": tf.train.Feature(int64_list=tf.train.Int64List(
                    value=[label])),
                "size": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2]))}))
            w.write(ex.SerializeToString())


def _dataset(pattern, num_samples):
    keys_to_features = {
        "image/encoded": tf.FixedLenFeature((), tf.string, default_value=""),
        "image/format": tf.FixedLenFeature((), tf.string, default_value="png"),
        "image/class/label": tf.FixedLenFeature([], tf.int64),
        "size": tf.FixedLenFeature([2], tf.int64)}
    items_to_handlers = {
        "image": slim.tfexample_decoder.Image(shape=[2, 3, 3]),
        "label": slim.tfexample_decoder.Tensor("image/class/label"),
        "size": slim.tfexample_decoder.Tensor("size", shape=[1, 2]),
        "twice": slim.tfexample_decoder.ItemHandlerCallback(
            ["image/class/label"], lambda k: k["image/class/label"] * 2)}
    decoder = slim.tfexample_decoder.TFExampleDecoder(keys_to_features, items_to_handlers)
    return slim.dataset.Dataset(data_sources=pattern, reader=tf.TFRecordReader,
                                decoder=decoder, num_samples=num_samples,
                                items_to_descriptions={}, num_classes=5)


def test_provider_reads_and_decodes_every_record(tmp_path):
    _write(str(tmp_path / "a.tfrecord"), [1, 2])
    _write(str(tmp_path / "b.tfrecord"), [3])
    ds = _dataset(str(tmp_path / "*.tfrecord"), 3)
    assert ds.num_classes == 5
    with tf.Graph().as_default():
        provider = slim.dataset_data_provider.DatasetDataProvider(
            ds, num_readers=2, shuffle=False, num_epochs=1, common_queue_capacity=8,
            common_queue_min=2)
        assert provider.num_samples() == 3
        assert sorted(provider.list_items()) == ["image", "label", "record_key", "size",
                                                 "twice"]
        image, label, size, twice, key = provider.get(
            ["image", "label", "size", "twice", "record_key"])
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord=coord)
            seen = []
            for _ in range(3):
                img, lab, sz, tw, k = sess.run([image, label, size, twice, key])
                assert img.shape == (2, 3, 3) and np.all(img == lab * 10)
                assert sz.tolist() == [[1, 2]] and tw == 2 * lab
                assert b".tfrecord:" in k
                seen.append(int(lab))
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(label)
            coord.request_stop()
            coord.join(threads)
    assert sorted(seen) == [1, 2, 3]


def test_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match="needs features"):
        slim.tfexample_decoder.TFExampleDecoder(
            {}, {"label": slim.tfexample_decoder.Tensor("label")})
    with pytest.raises(ValueError, match="No data files"):
        slim.dataset_data_provider.get_data_files(str(tmp_path / "*.none"))
    ds = _dataset(str(tmp_path / "*.none"), 0)
    with tf.Graph().as_default():
        provider_args = dict(shuffle=False)
        with pytest.raises(ValueError, match="No data files"):
            slim.dataset_data_provider.DatasetDataProvider(ds, **provider_args)
    _write(str(tmp_path / "a.tfrecord"), [1])
    ds = _dataset(str(tmp_path / "a.tfrecord"), 1)
    with tf.Graph().as_default():
        provider = slim.dataset_data_provider.DatasetDataProvider(ds, shuffle=False)
        with pytest.raises(ValueError, match="unknown items"):
            provider.get(["nothing"])
        with pytest.raises(ValueError, match="min_after_dequeue"):
            slim.dataset_data_provider.DatasetDataProvider(ds, common_queue_capacity=4,
                                                           common_queue_min=4)
