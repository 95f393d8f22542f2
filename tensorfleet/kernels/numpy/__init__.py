"""The numpy kernels: the reference backend, which defines what every op computes and runs
everywhere. One module per op family, named as the family's constructors in ``ops/`` and
gradients in ``gradients/`` are; importing this package registers them all for the CPU
device type."""

from tensorfleet.kernels.numpy import (  # noqa: F401
    accumulator_kernels, array_indexing_kernels, array_kernels, bitwise_kernels,
    categorical_kernels, collective_kernels, complex_kernels, control_flow_kernels, ctc_kernels,
    data_flow_kernels, dataset_kernels, decode_compressed_kernels, dynamic_embedding_kernels,
    edit_distance_kernels, fake_quant_kernels, functional_kernels, fused_kernels, hash_kernels,
    image_boxes_kernels,
    image_codec_kernels, image_kernels, image_patches_kernels, image_transform_kernels,
    io_kernels, io_reader_kernels, linalg_kernels, lookup_kernels, lu_kernels, math_kernels,
    matrix_function_kernels, morphology_kernels, tridiagonal_kernels,
    math_special_kernels, nn_conv_kernels, nn_conv_variant_kernels, nn_kernels,
    nn_norm_kernels, nn_pool_kernels, nn_sampling_kernels, parsing_kernels, print_kernels,
    quantize_kernels, random_kernels, reader_kernels, rnn_kernels, scatter_kernels,
    script_kernels,
    segment_kernels, sendrecv_kernels, seq2seq_beam_kernels, sets_kernels, shape_check_kernels,
    special_function_kernels, spectral_kernels, sparse_kernels, sparse_lookup_kernels,
    state_kernels, stateless_random_distribution_kernels, stateless_random_kernels,
    string_kernels, string_manip_kernels, summary_kernels, tensor_array_kernels,
    tensor_serialization_kernels, training_group_kernels, training_kernels,
    training_sparse_kernels)
from tensorfleet.kernels.numpy import (  # noqa: F401,E402
    audio_kernels, json_example_kernels, sparse_serialization_kernels, string_unicode_kernels,
    string_unicode_codec_kernels, dataset_state_kernels, dataset_optional_kernels,
    dataset_error_kernels, proto_kernels, parsing_sequence_batch_kernels,
    image_glimpse_kernels, dataset_resample_kernels, dataset_snapshot_kernels,
    dataset_saveable_kernels,
    mutable_lookup_kernels, tensor_summary_kernels, tfrecord_write_kernels)
from tensorfleet.kernels.numpy import (  # noqa: F401,E402
    quantized_nn_kernels, sdca_kernels, session_tensor_kernels)
