"""The drivers of text's compiled kernels (``nbayes._native``), one module per job.

============================  ==============================================================
module                        what it does
============================  ==============================================================
``chars``                     the character tables (word characters, lowercasing) and the
                              zero-copy reader of ``str`` documents (``read``: both at once)
``threads``                   how many kernel threads, spans of documents, waiting for them;
                              a batch handed to them once (``hand_off``: a job and its
                              ``Team``)
``zero_copy``                 unigram counts per class with the strings read in place
                              (``DirectCounts``, the sorted ``Terms``)
``lookup``                    a vocabulary's compiled lookup table; rows over a fixed
                              vocabulary, read in place
``token_streams``             tokens and word pairs interned as id streams (n-grams), their
                              columns, rows and class sums over a vocabulary
``ngrams``                    longer word n-grams composed in numpy from the token ids
``hashing``                   hashed unigram and word n-gram counts and rows read in place
``class_counts``              per-class counts and rows over a vocabulary (``count_by_class``,
                              ``transform_counts``) and a TextClassifier batch's vocabulary step
``hash_counts``               hashed rows and per-class sums (``hashing_transform``,
                              ``hash_by_class``, ``hash_into``) and a batch's hashed step
``sparse_dot``                document rows times the weight matrix, in threads (scoring)
============================  ==============================================================

``nbayes.text._tokenize`` is their one entry point for the modules above; which driver
counts a batch is :mod:`nbayes.text._routes`' choice. The modules' earlier names
(``nbayes.text._drivers.zero_copy``, ``_copying``, ``_counting``, ...) are aliases of these
(``nbayes._compat``).
"""
