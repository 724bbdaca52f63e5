"""Keystone operations of the engine, on keystoneauth1.

* :mod:`.trusts`: the trust from a stack's owner to the ``[trustee]``
  user, and sessions scoped to it (``deferred_auth_method = trusts``).
* :mod:`.stack_domain`: the stack-user domain: a project per root stack,
  stack users, their EC2 key pairs, enable/disable.
* :mod:`.ec2tokens`: EC2 (v2 and v4) signature checks through Keystone.
* :mod:`.errors`: Heat's exception names for what can go wrong.

Nothing here logs a password, secret, token or trust id.
"""
