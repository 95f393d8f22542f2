"""tf.keras.preprocessing.image: the affine and colour transforms, ImageDataGenerator's
standardization and augmentation, and its flows from arrays and folders."""

import numpy as np
import pytest
from PIL import Image

import tensorfleet as tf

image = tf.keras.preprocessing.image


def _img(h=5, w=5, c=3, seed=0):
    return np.random.RandomState(seed).rand(h, w, c).astype(np.float32) * 255


def test_quarter_turn_and_whole_pixel_shift_are_exact():
    x = _img()
    rot = image.apply_affine_transform(x, theta=90, row_axis=0, col_axis=1, channel_axis=2)
    np.testing.assert_allclose(rot, np.rot90(x, k=1, axes=(0, 1)), atol=1e-3)
    shifted = image.apply_affine_transform(x, tx=1, row_axis=0, col_axis=1, channel_axis=2,
                                           fill_mode="constant", cval=-1)
    # as in Keras, tx moves along the columns of a (row, column, channel) image
    np.testing.assert_allclose(shifted[:, :-1], x[:, 1:], atol=1e-4)
    assert np.all(shifted[:, -1] == -1)
    np.testing.assert_array_equal(image.apply_affine_transform(x, row_axis=0, col_axis=1,
                                                               channel_axis=2), x)
    with pytest.raises(ValueError, match="fill_mode"):
        image.apply_affine_transform(x, theta=1, fill_mode="mirror")


def test_channel_and_brightness_shifts():
    x = _img()
    out = image.apply_channel_shift(x, 50.0, channel_axis=2)
    np.testing.assert_allclose(out, np.clip(x + 50, x.min(), x.max()))
    brighter = image.apply_brightness_shift(x.astype(np.uint8).astype(np.float32), 1.5)
    assert brighter.mean() > x.astype(np.uint8).mean()
    with pytest.raises(ValueError, match="two floats"):
        image.random_brightness(x, (0.5,))
    with pytest.raises(ValueError, match="two floats"):
        image.random_zoom(x, (0.5, 1, 2))


def test_random_transforms_draw_from_numpys_generator():
    x = _img(c=1)
    np.random.seed(5)
    a = image.random_rotation(x, 30, row_axis=0, col_axis=1, channel_axis=2)
    np.random.seed(5)
    b = image.apply_affine_transform(x, theta=np.random.uniform(-30, 30), row_axis=0,
                                     col_axis=1, channel_axis=2)
    np.testing.assert_array_equal(a, b)
    for fn, arg in ((image.random_shift, (0.2, 0.2)), (image.random_shear, (10,)),
                    (image.random_zoom, ((0.8, 1.2),)), (image.random_channel_shift, (5,))):
        assert fn(x, *arg).shape == x.shape


def test_featurewise_standardization_and_zca():
    x = np.random.RandomState(1).rand(8, 4, 4, 3).astype(np.float32)
    gen = image.ImageDataGenerator(featurewise_center=True,
                                   featurewise_std_normalization=True)
    gen.fit(x)
    out = np.stack([gen.standardize(xi.copy()) for xi in x])
    np.testing.assert_allclose(out.mean(axis=(0, 1, 2)), 0, atol=1e-5)
    np.testing.assert_allclose(out.std(axis=(0, 1, 2)), 1, atol=1e-3)
    zca = image.ImageDataGenerator(zca_whitening=True, zca_epsilon=1e-9)
    small = np.random.RandomState(2).rand(40, 2, 2, 1).astype(np.float64)
    zca.fit(small)
    white = np.stack([zca.standardize(s.copy()) for s in small]).reshape(40, -1)
    np.testing.assert_allclose(white.T @ white / 40, np.eye(4), atol=1e-3)
    with pytest.raises(ValueError, match="rank 4"):
        gen.fit(x[0])
    with pytest.raises(ValueError, match="validation_split"):
        image.ImageDataGenerator(validation_split=1.5)


def test_flow_batches_labels_and_validation_subset():
    x = np.arange(10 * 2 * 2 * 1, dtype=np.float32).reshape(10, 2, 2, 1)
    y = np.array([0, 1] * 5)
    gen = image.ImageDataGenerator(rescale=0.5, horizontal_flip=False,
                                   validation_split=0.2)
    it = gen.flow(x, y, batch_size=3, shuffle=False, subset="training")
    assert len(it) == 3
    bx, by = it[0]
    np.testing.assert_array_equal(bx, x[2:5] * 0.5)
    np.testing.assert_array_equal(by, y[2:5])
    val = gen.flow(x, y, batch_size=8, shuffle=False, subset="validation")
    assert val.n == 2
    bx, by = next(iter(gen.flow(x, y, batch_size=4, seed=1)))
    assert bx.shape == (4, 2, 2, 1) and set(bx.reshape(4, -1)[:, 0] * 2) <= set(x[:, 0, 0, 0])
    with pytest.raises(ValueError, match="rank 4"):
        gen.flow(x[0], y)
    with pytest.raises(ValueError, match="same length"):
        gen.flow(x, y[:3])


def test_flow_from_directory_reads_a_folder_per_class(tmp_path):
    for cls, value in (("cats", 10), ("dogs", 200)):
        (tmp_path / cls).mkdir()
        for i in range(3):
            Image.fromarray(np.full((6, 8, 3), value, np.uint8)).save(tmp_path / cls /
                                                                       f"{i}.png")
    (tmp_path / "dogs" / "notes.txt").write_text("not an image")
    gen = image.ImageDataGenerator(rescale=1 / 255.0)
    it = gen.flow_from_directory(str(tmp_path), target_size=(4, 4), batch_size=6,
                                 shuffle=False)
    assert it.class_indices == {"cats": 0, "dogs": 1} and it.samples == 6
    bx, by = it[0]
    assert bx.shape == (6, 4, 4, 3)
    np.testing.assert_array_equal(by, np.repeat(np.eye(2), 3, axis=0))
    np.testing.assert_allclose(bx[:3], 10 / 255, rtol=1e-6)
    sparse = gen.flow_from_directory(str(tmp_path), target_size=(4, 4), class_mode="sparse",
                                     color_mode="grayscale", shuffle=False)
    bx, by = sparse[0]
    assert bx.shape == (6, 4, 4, 1) and list(by) == [0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="class_mode"):
        gen.flow_from_directory(str(tmp_path), class_mode="onehot")
