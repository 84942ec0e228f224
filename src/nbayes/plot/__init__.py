"""Plots for people who would rather look (matplotlib, the optional extra ``[plot]``).

* :func:`marginals` draws each class's conditional distribution of one column (density
  curves for gaussian and kde columns, bars for the discrete ones);
* :func:`confusion_matrix` draws a confusion matrix with counts, readable from 2 classes
  to about 50;
* :func:`informative_words` draws the most informative words of each class;
* :func:`reliability` draws the reliability (calibration) curve of predicted
  probabilities.

The plots read a model through its public ``likelihood()`` (the family and what it derived)
and its public attributes.
"""

from __future__ import annotations

from ._confusion import confusion_matrix
from ._marginals import marginals
from ._reliability import reliability
from ._words import informative_words, word_evidence

__all__ = ["confusion_matrix", "informative_words", "marginals", "reliability", "word_evidence"]
