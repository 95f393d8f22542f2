"""Estimator family: the premade DNNClassifier on iris with a dataset input_fn and export."""
import pandas as pd
import tensorflow as tf

CSV_COLUMN_NAMES = ['SepalLength', 'SepalWidth', 'PetalLength', 'PetalWidth', 'Species']


def train_input_fn(features, labels, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    return dataset.shuffle(1000).repeat().batch(batch_size)


def eval_input_fn(features, labels, batch_size):
    features = dict(features)
    inputs = features if labels is None else (features, labels)
    return tf.data.Dataset.from_tensor_slices(inputs).batch(batch_size)


def serving_input_receiver_fn():
    feature_spec = {k: tf.placeholder(tf.float32, [None], name=k) for k in CSV_COLUMN_NAMES[:4]}
    return tf.estimator.export.ServingInputReceiver(feature_spec, feature_spec)


def main(argv):
    train = pd.DataFrame({k: [1.0, 2.0] for k in CSV_COLUMN_NAMES[:4]})
    train_y = pd.Series([0, 1])
    my_feature_columns = [tf.feature_column.numeric_column(key=key) for key in train.keys()]
    classifier = tf.estimator.DNNClassifier(
        feature_columns=my_feature_columns, hidden_units=[10, 10], n_classes=3,
        optimizer=tf.train.AdamOptimizer(learning_rate=0.01),
        activation_fn=tf.nn.relu, dropout=0.1)
    classifier.train(input_fn=lambda: train_input_fn(train, train_y, 100), steps=100)
    eval_result = classifier.evaluate(input_fn=lambda: eval_input_fn(train, train_y, 100))
    print('\nTest set accuracy: {accuracy:0.3f}\n'.format(**eval_result))
    for pred in classifier.predict(input_fn=lambda: eval_input_fn(train, None, 100)):
        print(pred['class_ids'][0], pred['probabilities'])
    classifier.export_savedmodel('/tmp/iris_export', serving_input_receiver_fn)


if __name__ == '__main__':
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.app.run(main)
