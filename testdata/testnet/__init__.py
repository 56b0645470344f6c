# SPDX-License-Identifier: BSD-3-Clause
"""The loopback test internet: real NSD authoritative servers plus
scripted misbehaving responders on 127.x.y.z, for testing a recursive
resolver. See README.md; `from testnet import TestNet` with testdata/ on
sys.path."""
from .net import TestNet, pick_prefix, default_port
from .nsd import have_nsd
from .reference import ReferenceUnbound, have_unbound
from .zones import Case, answer_texts

__all__ = ["TestNet", "pick_prefix", "default_port", "have_nsd",
           "ReferenceUnbound", "have_unbound", "Case", "answer_texts"]
