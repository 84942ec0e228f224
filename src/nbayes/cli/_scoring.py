"""The verdicts of many messages from a spam model file (``nbayes filter MODEL MAIL...``,
``nbayes eval``): :class:`Verdicts`."""

from __future__ import annotations

from typing import Any

#: after this many messages, the rest are scored by the filter loaded whole: its table built
#: (~1 s for a model of 700k tokens), a message then costs a third of the scorer's look-ups
#: in the file (0.35 against 1 ms on the SpamAssassin corpus' model)
WHOLE_AFTER = 2000


class Verdicts:
    """The verdict of one message at a time: the scorer's (the file's columns mapped,
    nothing built) for the first :data:`WHOLE_AFTER` messages, then the whole filter's, the
    same verdicts (of the model file as it is then: one a registration replaced in between
    is read anew, as a second command would). The scorer stays if the file no longer
    loads."""

    def __init__(self, path: str, scorer: Any) -> None:
        self.path, self.scorer, self.seen = path, scorer, 0
        self.whole: Any = None

    def __call__(self, raw: Any) -> Any:
        self.seen += 1
        if self.seen == WHOLE_AFTER + 1:
            from nbayes.exceptions import ModelFileError
            from nbayes.io.persist import load
            from nbayes.spam import SpamFilter

            try:
                whole = load(self.path)
            except (OSError, ModelFileError):
                whole = None
            self.whole = whole if isinstance(whole, SpamFilter) else None
        model = self.whole if self.whole is not None else self.scorer
        return model.classify([raw])[0]
