"""Fields added to a model after files already held it: left out while they hold their default.

Its own module (events/model.py re-exports it) because a scenario uses it too, and loading a
scenario should not build every event model (a short command's start-up)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, SerializerFunctionWrapHandler, model_serializer


class OmitsUnset(BaseModel):
    """Fields added after logs already existed: left out of the dict while they hold their
    default, so older logs and files keep their bytes, hashes and golden files."""

    omitted_when_default: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _without_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        for name in self.omitted_when_default:
            if data.get(name) == type(self).model_fields[name].default:
                data.pop(name, None)
        return data
