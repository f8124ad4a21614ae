"""nbgrader's cell-metadata check, with its JSON schema checked once instead of per cell.

Stock ``CheckCellMetadata`` runs twice on every graded notebook (after sanitizing and
after grading) and calls ``jsonschema.validate`` on every cell; that function re-checks the
schema itself each time, which cost about half a second per notebook, more than the check.
:class:`CheckCellMetadata` here validates exactly the same metadata against the same schema
and raises the same errors, with the schema checked and compiled once per process.
``nbgrader_config.py`` puts it in place of the stock one in both of autograde's steps.
"""

from __future__ import annotations

import traceback

import jsonschema
from jsonschema.exceptions import best_match
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import (
    BaseMetadataValidator,
    SchemaTooNewError,
    SchemaTooOldError,
)
from nbgrader.preprocessors import CheckCellMetadata as StockCheckCellMetadata

from kit.inert import inert

_COMPILED: dict[int, jsonschema.protocols.Validator] = {}


def _compiled(version: int, schema: dict):
    """The schema's validator, checked once (``jsonschema.validate`` checks it per call)."""
    if version not in _COMPILED:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        _COMPILED[version] = cls(schema)
    return _COMPILED[version]


class _OnceCheckedSchema(BaseMetadataValidator):
    """``BaseMetadataValidator.validate_cell`` with a compiled validator."""

    def validate_cell(self, cell) -> None:
        if "nbgrader" not in cell.metadata:
            return
        schema = cell.metadata["nbgrader"].get("schema_version", 0)
        if schema < self.schema_version:
            raise SchemaTooOldError(
                f"Outdated schema version: {schema} (expected {self.schema_version})",
                schema, self.schema_version)
        if schema > self.schema_version:
            raise SchemaTooNewError(
                f"Schema version is too new: {schema} (expected {self.schema_version})",
                schema, self.schema_version)
        error = best_match(_compiled(self.schema_version, self.schema).iter_errors(cell.metadata["nbgrader"]))
        if error is not None:
            raise error


class OnceCheckedValidator(MetadataValidator, _OnceCheckedSchema):
    """nbgrader's current metadata validator; its schema step is :class:`_OnceCheckedSchema`'s."""


class CheckCellMetadata(StockCheckCellMetadata):
    """Stock ``CheckCellMetadata`` (same checks, same errors), schema checked once."""

    def preprocess(self, nb, resources):
        try:
            OnceCheckedValidator().validate_nb(nb)
        except ValidationError:
            self.log.error(inert(traceback.format_exc()).replace("\\x0a", "\n"))
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg) from None
        return nb, resources
