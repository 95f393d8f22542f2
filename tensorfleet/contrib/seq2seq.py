"""``tf.contrib.seq2seq``: the sequence loss, decoding helpers and decoders, beam search,
attention."""

from tensorfleet.ops.seq2seq_attention import (  # noqa: F401
    AttentionWrapper, AttentionWrapperState, BahdanauAttention, LuongAttention)
from tensorfleet.ops.seq2seq_beam import (  # noqa: F401
    BeamSearchDecoder, BeamSearchDecoderOutput, BeamSearchDecoderState, FinalBeamDecoderOutput,
    FinalBeamSearchDecoderOutput, gather_tree)
from tensorfleet.ops.seq2seq_decode import (  # noqa: F401
    BasicDecoder, BasicDecoderOutput, Decoder, GreedyEmbeddingHelper, Helper,
    SampleEmbeddingHelper, TrainingHelper, dynamic_decode, tile_batch)
from tensorfleet.ops.seq2seq_loss import sequence_loss  # noqa: F401

__all__ = ["sequence_loss", "Helper", "TrainingHelper", "GreedyEmbeddingHelper",
           "SampleEmbeddingHelper", "Decoder", "BasicDecoder", "BasicDecoderOutput",
           "dynamic_decode", "tile_batch", "BeamSearchDecoder", "BeamSearchDecoderOutput",
           "BeamSearchDecoderState", "FinalBeamSearchDecoderOutput", "FinalBeamDecoderOutput",
           "gather_tree", "BahdanauAttention", "LuongAttention", "AttentionWrapper",
           "AttentionWrapperState"]
