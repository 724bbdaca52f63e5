"""Controllers of the native API: thin validation, policy, RPC, view."""
