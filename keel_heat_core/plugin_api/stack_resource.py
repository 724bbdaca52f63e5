"""StackResource: the base of resources that own a child stack.

``AWS::CloudFormation::Stack``, ``OS::Heat::ResourceGroup``, the scaling
groups and template resources are each a child stack driven through the
engine RPC API: create, update, delete, suspend, resume and check are
forwarded to the child, and the resource is done when the child reaches
``<ACTION>_COMPLETE``.  ``resource_id`` is the child stack id; attributes
come from the child's outputs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from keel_heat_core import exception
from keel_heat_core.plugin_api.resource import Resource

LOG = logging.getLogger(__name__)

#: Heat's default ``max_nested_stack_depth``.
DEFAULT_MAX_NESTED_DEPTH = 5


class StackResource(Resource):
    """A resource whose physical object is a child stack.

    Subclasses implement :meth:`child_template` and :meth:`child_params`
    (or call :meth:`create_with_template` themselves).
    """

    #: delete with ``abandon_stack`` instead of ``delete_stack``
    abandon_in_progress = False
    #: ask the engine to converge the child with reality on update
    converge = False
    #: what a validation error names the child stack by:
    #: ``resources.<name><<template_url>>``
    template_url = "nested_stack"

    def __init__(self, name: str, definition: Any, stack: Any) -> None:
        super().__init__(name, definition, stack)
        self._outputs: dict[str, dict[str, Any]] | None = None

    def awaited_stack_id(self) -> str | None:
        """The child stack the checks wait for: the engine wakes them when
        its traversal ends instead of at the next poll."""
        return self.resource_id

    def child_template(self) -> Any:
        """The child stack's template (a dict)."""
        raise NotImplementedError

    def child_params(self) -> dict[str, Any]:
        """The child stack's parameter values."""
        raise NotImplementedError

    def validate(self) -> None:
        super().validate()
        # A child stack is validated with the root stack only; the engine
        # does not validate it again (strictly) when it creates it.
        depth = getattr(self.stack, "nested_depth", 0)
        if depth == 0 or not getattr(self.stack, "strict_validate", True):
            self.validate_nested_stack()

    def validate_nested_stack(self) -> None:
        """Have the engine validate the child template (non-strictly).

        Uses the stack facade's ``validate_child_stack(name, template,
        params, files)`` when the engine provides it.

        :raises StackValidationFailed: ``resources.<name><<url>>: ...``.
        """
        self.check_child_stack(self.child_template, self.child_params)

    def check_child_stack(
        self,
        template: Callable[[], Any],
        user_params: Callable[[], Any],
    ) -> None:
        """Have the engine validate the child stack that ``template()``
        and ``user_params()`` give (nothing is built when the engine does
        not validate child stacks).

        :raises StackValidationFailed: ``resources.<name><<url>>: ...``.
        """
        check = getattr(self.stack, "validate_child_stack", None)
        if not callable(check):
            return
        try:
            check(
                f"{self.stack.name}-{self.name}",
                template(),
                self._child_environment(user_params()),
                self.child_template_files(),
            )
        except Exception as ex:
            raise exception.StackValidationFailed(
                ex,
                path=[
                    self.stack.t.get_section_name("Resources"),
                    f"{self.name}<{self.template_url}>",
                ],
            ) from ex

    def child_template_files(self) -> dict[str, Any]:
        """Files the child template refers to (default: the parent's)."""
        return dict(getattr(self.stack.t, "files", {}) or {})

    def nested_identifier(self) -> dict[str, Any] | None:
        """The child stack identifier, or None before creation."""
        if self.resource_id is None:
            return None
        return {
            "tenant": getattr(self.context, "project_id", None),
            "stack_name": self.physical_resource_name(),
            "stack_id": self.resource_id,
            "path": "",
        }

    def _child_nested_depth(self) -> int:
        limit = getattr(
            self.stack, "max_nested_stack_depth", DEFAULT_MAX_NESTED_DEPTH
        )
        depth = int(getattr(self.stack, "nested_depth", 0))
        if depth >= limit:
            raise exception.RequestLimitExceeded(
                message=f"Recursion depth exceeds {limit}."
            )
        return depth + 1

    def _child_environment(self, user_params: Any) -> dict[str, Any]:
        make = getattr(self.stack, "child_environment", None)
        if callable(make):
            return dict(make(user_params, self.name))
        return {"parameters": dict(user_params or {})}

    def _stack_kwargs(
        self, user_params: Any, child_template: Any
    ) -> dict[str, Any]:
        if user_params is None:
            user_params = self.child_params()
        if child_template is None:
            child_template = self.child_template()
        return {
            "template": child_template,
            "params": self._child_environment(user_params),
            "files": self.child_template_files(),
        }

    def create_with_template(
        self,
        child_template: Any,
        user_params: Any = None,
        timeout_mins: int | None = None,
        adopt_data: Any = None,
    ) -> None:
        """Ask the engine to create the child stack."""
        if timeout_mins is None:
            timeout_mins = getattr(self.stack, "timeout_mins", None)
        kwargs = self._stack_kwargs(user_params, child_template)
        kwargs.update(
            stack_name=self.physical_resource_name(),
            args={
                "timeout_mins": timeout_mins,
                "disable_rollback": True,
                "adopt_stack_data": adopt_data,
            },
            environment_files=None,
            owner_id=self.stack.id,
            user_creds_id=getattr(self.stack, "user_creds_id", None),
            stack_user_project_id=getattr(
                self.stack, "stack_user_project_id", None
            ),
            nested_depth=self._child_nested_depth(),
            parent_resource_name=self.name,
        )
        result = self.rpc_client()._create_stack(self.context, **kwargs)
        self.resource_id_set(result["stack_id"])

    def handle_create(self) -> None:
        self.create_with_template(self.child_template(), self.child_params())

    def check_create_complete(self, cookie: Any = None) -> bool:
        return self._check_status_complete(self.CREATE)

    def _check_status_complete(
        self, expected_action: str, cookie: Any = None
    ) -> bool:
        if self.resource_id is None:
            return expected_action == self.DELETE
        data = self.stack.child_stack_status(self.resource_id)
        if data is None:
            # Gone (deleted), or not stored yet by the engine creating it.
            return expected_action == self.DELETE
        action, status, status_reason, updated_time = data
        if action != expected_action:
            return False
        if cookie is not None:
            previous = cookie["previous"]
            if previous["updated_at"] == updated_time and tuple(
                previous["state"]
            ) == (action, status):
                return False
        if status == self.IN_PROGRESS:
            return False
        if status == self.COMPLETE:
            self._outputs = None
            return True
        if status == self.FAILED:
            raise exception.ResourceFailure(status_reason, self, action=action)
        raise exception.ResourceUnknownStatus(
            resource_status=status,
            status_reason=status_reason,
            result="Stack unknown status",
        )

    def update_with_template(
        self,
        child_template: Any,
        user_params: Any = None,
        timeout_mins: int | None = None,
    ) -> dict[str, Any]:
        """Ask the engine to update the child; returns the poll cookie.

        :raises UpdateReplace: when the child stack no longer exists.
        """
        if self.resource_id is None:
            raise exception.UpdateReplace(self)
        data = self.stack.child_stack_status(self.resource_id)
        if data is None:
            raise exception.UpdateReplace(self)
        action, status, _reason, updated_time = data
        if timeout_mins is None:
            timeout_mins = getattr(self.stack, "timeout_mins", None)
        kwargs = self._stack_kwargs(user_params, child_template)
        kwargs.update(
            stack_identity=self.nested_identifier(),
            args={"timeout_mins": timeout_mins, "converge": self.converge},
        )
        self.rpc_client()._update_stack(self.context, **kwargs)
        self._outputs = None
        return {
            "previous": {"updated_at": updated_time, "state": (action, status)}
        }

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> Any:
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        return self.update_with_template(
            self.child_template(), self.child_params()
        )

    def needs_replace_failed(self) -> bool:
        """A failed child stack that exists is updated, not replaced."""
        return self.resource_id is None

    def _needs_update(
        self,
        after: Any,
        before: Any,
        after_props: Any,
        before_props: Any,
        prev_resource: Any,
        check_init_complete: bool = True,
    ) -> bool:
        """Always update the child stack: a changed provider template in
        ``files`` or a changed environment reaches it even when this
        resource's definition is unchanged, and the child's resources
        each decide whether they change.

        :raises UpdateReplace: before the child exists, as any resource
            would be replaced; or when this resource was marked
            CHECK_FAILED while its child was not (marked unhealthy).
        """
        if self.resource_id is None:
            super()._needs_update(
                after,
                before,
                after_props,
                before_props,
                prev_resource,
                check_init_complete,
            )
        elif self.state == (self.CHECK, self.FAILED):
            data = self.stack.child_stack_status(self.resource_id)
            if data is None or tuple(data[:2]) != (self.CHECK, self.FAILED):
                raise exception.UpdateReplace(self)
        return True

    def check_update_complete(self, cookie: Any = None) -> bool:
        return self._check_status_complete(self.UPDATE, cookie=cookie)

    def delete_nested(self) -> None:
        """Delete (or abandon) the child stack; a missing one is fine."""
        identity = self.nested_identifier()
        if identity is None:
            return
        rpc = self.rpc_client()
        try:
            if self.abandon_in_progress:
                rpc.abandon_stack(self.context, identity)
            else:
                rpc.delete_stack(self.context, identity, cast=False)
        except exception.EntityNotFound:
            pass

    def handle_delete(self) -> None:
        self.delete_nested()

    def check_delete_complete(self, cookie: Any = None) -> bool:
        return self._check_status_complete(self.DELETE)

    def handle_suspend(self) -> None:
        identity = self.nested_identifier()
        if identity is None:
            raise exception.Error(
                f"Cannot suspend {self.name}, stack not created"
            )
        self.rpc_client().stack_suspend(self.context, identity)

    def check_suspend_complete(self, cookie: Any = None) -> bool:
        return self._check_status_complete(self.SUSPEND)

    def handle_resume(self) -> None:
        identity = self.nested_identifier()
        if identity is None:
            raise exception.Error(
                f"Cannot resume {self.name}, stack not created"
            )
        self.rpc_client().stack_resume(self.context, identity)

    def check_resume_complete(self, cookie: Any = None) -> bool:
        return self._check_status_complete(self.RESUME)

    def handle_check(self) -> None:
        identity = self.nested_identifier()
        if identity is not None:
            self.rpc_client().stack_check(self.context, identity)

    def check_check_complete(self, cookie: Any = None) -> bool:
        return self._check_status_complete(self.CHECK)

    def handle_preempt(self) -> None:
        """Stop the child stack's running create or update (no rollback),
        so that the older traversal holding this resource ends and a
        newer one takes over; a child not in progress is left alone."""
        identity = self.nested_identifier()
        if identity is None:
            return
        try:
            self.rpc_client().stack_cancel_update(
                self.context, identity, cancel_with_rollback=False
            )
        except exception.NotSupported:
            LOG.debug("Nested stack %s not in a cancellable state", identity)

    def _nested_outputs(self) -> dict[str, dict[str, Any]]:
        if self._outputs is None:
            identity = self.nested_identifier()
            if identity is None:
                return {}
            shown = self.rpc_client().show_stack(
                self.context, identity, resolve_outputs=True
            )
            stack = shown[0] if isinstance(shown, list) else shown
            self._outputs = {
                o["output_key"]: o for o in stack.get("outputs") or []
            }
        return self._outputs

    def get_output(self, op: str) -> Any:
        """The value of output ``op`` of the child stack.

        :raises InvalidTemplateAttribute: when there is no such output.
        :raises TemplateOutputError: when the output failed to resolve.
        """
        outputs = self._nested_outputs()
        if op not in outputs:
            raise exception.InvalidTemplateAttribute(
                resource=self.name, key=op
            )
        data = outputs[op]
        if data.get("output_error"):
            raise exception.TemplateOutputError(
                message=data["output_error"], resource=self.name, attribute=op
            )
        return data.get("output_value")

    def get_reference_id(self) -> str:
        if self.resource_id is None:
            return str(self.name)
        identity = self.nested_identifier() or {}
        return "arn:openstack:heat::{}:stacks/{}/{}".format(
            identity.get("tenant"),
            identity.get("stack_name"),
            identity.get("stack_id"),
        )
