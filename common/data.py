"""Evaluation text: WikiText-2 validation through ``datasets``, a local file, or an offline fallback.

Sources, in order:

1. ``local_file``: a UTF-8 text file, one sequence per line, loaded with ``datasets``' ``text``
   loader (``load_dataset("text", data_files=...)``); a missing file is a :class:`UserError`.
   Without ``local_file``: the file named by ``$MLC_DATA_FILE``, else the first of
   ``DATA_FILES`` present in the repository's ``data/`` folder (``data/README.md``): WikiText-2's
   raw validation file ``wiki.valid.raw`` (from ``wikitext-2-raw-v1.zip``) or the Hugging Face
   hub's ``validation-00000-of-00001.parquet`` of ``wikitext-2-raw-v1`` (a ``text`` column, read
   with ``datasets``' ``parquet`` loader). These give the same lines as the hub.
2. WikiText-2 (Merity et al. 2016): ``load_dataset("wikitext", "wikitext-2-raw-v1",
   split="validation")``, the first ``n`` non-empty, non-heading lines. Tried only when the hub
   answers a 3-second connection probe (``datasets`` itself retries for ~25 s before failing).
3. Otherwise a one-line notice on stderr and a deterministic fallback corpus: sentences drawn by
   ``random.Random(0)`` from fixed templates about compilers (same text on every machine).

The ``source`` string of the returned :class:`TextData` names which one was used; put it into every
table that depends on the data.

Tokenization needs no download: :func:`tokenize` maps UTF-8 bytes to ids (``id = byte % vocab``),
repeating the text cyclically to fill ``seq_len`` so no padding or attention masking is needed.
"""
from __future__ import annotations

import functools
import os
import random
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import UserError

WIKITEXT = ("wikitext", "wikitext-2-raw-v1", "validation")
HUB_HOST = "huggingface.co"
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
# Looked for in DATA_DIR, in this order, when no file is given (see data/README.md).
DATA_FILES = ("wiki.valid.raw", "validation-00000-of-00001.parquet")


@dataclass(frozen=True)
class TextData:
    """``texts``: non-empty strings; ``source``: where they came from (for results tables)."""

    texts: tuple[str, ...]
    source: str


def hub_reachable(host: str = HUB_HOST, timeout_s: float = 3.0) -> bool:
    """True when ``host:443`` accepts a TCP connection within ``timeout_s`` and offline mode is off."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes"} or os.environ.get("HF_DATASETS_OFFLINE") == "1":
        return False
    try:
        with socket.create_connection((host, 443), timeout=timeout_s):
            return True
    except OSError:
        return False


_SUBJECTS = ["The compiler", "A graph pass", "The scheduler", "The runtime", "An optimizer", "The tuner",
             "The lowering pipeline", "A fused kernel", "The memory planner", "The exporter"]
_VERBS = ["rewrites", "folds", "tiles", "vectorizes", "fuses", "reorders", "checks", "lowers", "unrolls", "measures"]
_OBJECTS = ["the reshape chain", "every constant gather", "the innermost loop", "the attention block",
            "a convolution and its batch norm", "the matrix multiplication", "the identity nodes",
            "each tensor's lifetime", "the loop nest", "the shape computation"]
_TAILS = ["before the model runs.", "so that the numbers do not change.", "within the time budget.",
          "on two cores.", "and the gate compares the outputs.", "after shape inference.",
          "at opset eighteen.", "for the target machine."]


def fallback_corpus(n: int) -> list[str]:
    """``n`` deterministic pseudo-sentences (2-4 clauses each) from ``random.Random(0)``."""
    rng = random.Random(0)
    out = []
    for _ in range(n):
        k = rng.randint(2, 4)
        out.append(" ".join(f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_TAILS)}"
                            for _ in range(k)))
    return out


def _clean(lines, n: int) -> list[str]:
    out = []
    for line in lines:
        s = line.strip()
        if s and not (s.startswith("=") and s.endswith("=")):
            out.append(s)
            if len(out) == n:
                break
    return out


def default_data_file() -> Path | None:
    """The local evaluation file to use when none is passed: ``$MLC_DATA_FILE``, else the first of
    ``DATA_FILES`` present in ``DATA_DIR``, else ``None`` (then the hub or the fallback corpus)."""
    env = os.environ.get("MLC_DATA_FILE")
    if env:
        return Path(env)
    return next((DATA_DIR / name for name in DATA_FILES if (DATA_DIR / name).is_file()), None)


def _read_local(path: Path, n: int) -> TextData:
    if not path.is_file():
        raise UserError(f"data file {path} does not exist; pass an existing UTF-8 text file (one sequence per line)")
    from datasets import load_dataset
    kind = "parquet" if path.suffix == ".parquet" else "text"
    ds = load_dataset(kind, data_files=str(path), split="train")
    texts = _clean(ds["text"], n)
    if not texts:
        raise UserError(f"data file {path} has no non-empty lines")
    return TextData(tuple(texts), f"local file {path} (first {len(texts)} non-empty lines)")


@functools.lru_cache(maxsize=8)
def load_texts(n: int = 100, local_file: str | None = None) -> TextData:
    """First ``n`` non-empty sequences of the evaluation text (see module docstring for sources).

    Args:
        n: number of sequences (>= 1).
        local_file: path to a UTF-8 text file (one sequence per line, or a ``.parquet`` file with a
            ``text`` column); skips the hub. ``None``: :func:`default_data_file`, if any.

    Raises:
        UserError: ``n < 1``, a missing or empty local file (``$MLC_DATA_FILE`` included).
    """
    if n < 1:
        raise UserError(f"need at least one text sequence, got n={n}")
    path = Path(local_file) if local_file is not None else default_data_file()
    if path is not None:
        return _read_local(path, n)
    if hub_reachable():
        try:
            from datasets import load_dataset
            ds = load_dataset(WIKITEXT[0], WIKITEXT[1], split=WIKITEXT[2])
            texts = _clean(ds["text"], n)
            return TextData(tuple(texts), f"WikiText-2 raw validation, first {len(texts)} non-empty sequences")
        except Exception as exc:  # the hub answered the probe but the download failed
            print(f"notice: WikiText-2 download failed ({type(exc).__name__}); using the offline fallback corpus",
                  file=sys.stderr)
    else:
        print("notice: the Hugging Face hub is unreachable (or offline mode is set); using the deterministic "
              "offline fallback corpus instead of WikiText-2 (pass a local text file to use real text)", file=sys.stderr)
    return TextData(tuple(fallback_corpus(n)), f"offline fallback corpus (common.data.fallback_corpus, seed 0, {n} sequences)")


def tokenize(texts, vocab_size: int, seq_len: int) -> np.ndarray:
    """Byte-level token ids, int64 [len(texts), seq_len].

    Each text's UTF-8 bytes become ids ``b % vocab_size``; the byte string is repeated cyclically
    (joined by a space) until ``seq_len`` ids are filled, so every position is real text.

    Raises:
        UserError: ``vocab_size < 2``, ``seq_len < 1`` or an empty text.
    """
    if vocab_size < 2 or seq_len < 1:
        raise UserError(f"tokenize needs vocab_size >= 2 and seq_len >= 1 (got {vocab_size}, {seq_len})")
    out = np.empty((len(texts), seq_len), dtype=np.int64)
    for i, t in enumerate(texts):
        b = np.frombuffer((t + " ").encode("utf-8"), dtype=np.uint8)
        if b.size <= 1:
            raise UserError(f"text {i} is empty")
        reps = -(-seq_len // b.size)
        out[i] = np.tile(b, reps)[:seq_len].astype(np.int64) % vocab_size
    return out
