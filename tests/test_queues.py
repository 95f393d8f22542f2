"""FIFOQueue and PaddingFIFOQueue through a local Session, and the queue resource."""

import threading
import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.data_flow_test_util import start_thread  # noqa: F401  (replaced below)
