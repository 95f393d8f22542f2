"""CTR family: the census-income wide & deep model with feature columns and CSV input."""
import tensorflow as tf

_CSV_COLUMNS = ['age', 'workclass', 'fnlwgt', 'education', 'education_num', 'marital_status',
                'occupation', 'relationship', 'race', 'gender', 'capital_gain', 'capital_loss',
                'hours_per_week', 'native_country', 'income_bracket']
_CSV_COLUMN_DEFAULTS = [[0], [''], [0], [''], [0], [''], [''], [''], [''], [''], [0], [0], [0],
                        [''], ['']]


def build_model_columns():
    age = tf.feature_column.numeric_column('age')
    education_num = tf.feature_column.numeric_column('education_num')
    capital_gain = tf.feature_column.numeric_column('capital_gain')
    hours_per_week = tf.feature_column.numeric_column('hours_per_week')
    education = tf.feature_column.categorical_column_with_vocabulary_list(
        'education', ['Bachelors', 'HS-grad', '11th', 'Masters', '9th', 'Some-college'])
    marital_status = tf.feature_column.categorical_column_with_vocabulary_list(
        'marital_status', ['Married-civ-spouse', 'Divorced', 'Never-married'])
    workclass = tf.feature_column.categorical_column_with_vocabulary_list(
        'workclass', ['Self-emp-not-inc', 'Private', 'State-gov', 'Federal-gov'])
    occupation = tf.feature_column.categorical_column_with_hash_bucket(
        'occupation', hash_bucket_size=1000)
    age_buckets = tf.feature_column.bucketized_column(
        age, boundaries=[18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    base_columns = [education, marital_status, workclass, occupation, age_buckets]
    crossed_columns = [
        tf.feature_column.crossed_column(['education', 'occupation'], hash_bucket_size=1000),
        tf.feature_column.crossed_column([age_buckets, 'education', 'occupation'],
                                         hash_bucket_size=1000)]
    wide_columns = base_columns + crossed_columns
    deep_columns = [age, education_num, capital_gain, hours_per_week,
                    tf.feature_column.indicator_column(workclass),
                    tf.feature_column.indicator_column(education),
                    tf.feature_column.embedding_column(occupation, dimension=8)]
    return wide_columns, deep_columns


def input_fn(data_file, num_epochs, shuffle, batch_size):
    assert tf.gfile.Exists(data_file), ('%s not found.' % data_file)

    def parse_csv(value):
        columns = tf.decode_csv(value, record_defaults=_CSV_COLUMN_DEFAULTS)
        features = dict(zip(_CSV_COLUMNS, columns))
        labels = features.pop('income_bracket')
        return features, tf.equal(labels, '>50K')

    dataset = tf.data.TextLineDataset(data_file)
    if shuffle:
        dataset = dataset.shuffle(buffer_size=32561)
    dataset = dataset.map(parse_csv, num_parallel_calls=5)
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size)
    return dataset


def build_estimator(model_dir, model_type):
    wide_columns, deep_columns = build_model_columns()
    hidden_units = [100, 75, 50, 25]
    run_config = tf.estimator.RunConfig().replace(
        session_config=tf.ConfigProto(device_count={'GPU': 0}))
    if model_type == 'wide':
        return tf.estimator.LinearClassifier(model_dir=model_dir, feature_columns=wide_columns,
                                             config=run_config)
    elif model_type == 'deep':
        return tf.estimator.DNNClassifier(model_dir=model_dir, feature_columns=deep_columns,
                                          hidden_units=hidden_units, config=run_config)
    return tf.estimator.DNNLinearCombinedClassifier(
        model_dir=model_dir, linear_feature_columns=wide_columns,
        dnn_feature_columns=deep_columns, dnn_hidden_units=hidden_units, config=run_config)


if __name__ == '__main__':
    model = build_estimator('/tmp/census_model', 'wide_deep')
    for n in range(20):
        model.train(input_fn=lambda: input_fn('adult.data', 2, True, 40))
        results = model.evaluate(input_fn=lambda: input_fn('adult.test', 1, False, 40))
        for key in sorted(results):
            print('%s: %s' % (key, results[key]))
