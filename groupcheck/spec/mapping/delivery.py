"""The record layer (``model/delivery``) as the values of ``Delivery.tla``, shared by the
consumer and consumer-group mappings: a ``Log`` becomes [end, committed, base, fetcher, done,
excused] (offset masks as sets), an ``App`` [cursors, commit, reply, waiting] with cursors a
function partition -> [position, processed, unfetchable, revoking] and the commit in flight
[member, generation, offsets (partition -> offset), purpose]; None (no commit, no answer, no
application, the layer off) becomes the model value NoValue. Partitions are the models'
partition bits: with the specs' one topic, bit p is partition p."""
from __future__ import annotations

from ..manifest import OutsideSpec
from ..values import ModelValue, fcn, mask_set, rec

NONE = ModelValue("NoValue")     # the specs' None: the config's model value NoValue


def records_constants(scope) -> dict:
    """The record layer's constants of ``scope`` (the defaults while ``records`` is off)."""
    return {"Records": scope.records, "MaxRecords": scope.max_records, "CommitPolicy": scope.commit_policy,
            "OffsetReset": scope.offset_reset}


def logs_value(logs) -> object:
    if logs is None:
        return NONE
    return fcn({p: rec(end=log.end, committed=log.committed, base=log.base, fetcher=log.fetcher,
                       done=mask_set(log.done), excused=mask_set(log.excused))
                for p, log in enumerate(logs)})


def _commit(req) -> object:
    if req is None:
        return NONE
    return rec(member=req.member, generation=req.generation, purpose=req.purpose, offsets=fcn(dict(req.offsets)))


def app_value(app) -> object:
    if app is None:
        return NONE
    if app.meta_generation != -2:
        raise OutsideSpec("ConsumerGroupMetadata's generation (written only under kafka-9741) is outside the spec")
    cursors = fcn({c.partition: rec(position=c.position, processed=c.processed, unfetchable=c.unfetchable,
                                    revoking=c.revoking) for c in app.cursors})
    return rec(cursors=cursors, commit=_commit(app.commit), reply=NONE if app.reply is None else app.reply,
               waiting=app.waiting)
