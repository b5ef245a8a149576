"""Views: the plain data each template renders, computed from the intermediate model.

One module per kind of thing rendered: ``models`` (model, enum, alias and union modules),
``operations`` (an operation's request and response -- all request building),
``jobs`` (a job's waits, handles, result and cancel), ``errors`` (a job's own error
classes), ``resources`` (a resource module), ``client`` (the client class and its
credentials) and ``readme`` (what the SDK's README tells of it).
"""

from .client import client_view, env_prefix
from .errors import error_model_imports, job_errors_view
from .jobs import ErrorClasses, error_classes, error_type, job_phrase, job_view
from .models import alias_view, enum_view, model_view, union_view
from .operations import operation_view
from .readme import readme_view
from .resources import resource_view

__all__ = [
    "ErrorClasses",
    "alias_view",
    "client_view",
    "enum_view",
    "env_prefix",
    "error_classes",
    "error_model_imports",
    "error_type",
    "job_errors_view",
    "job_phrase",
    "job_view",
    "model_view",
    "operation_view",
    "readme_view",
    "resource_view",
    "union_view",
]
