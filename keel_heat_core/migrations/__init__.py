"""Alembic migrations of keel-heat, starting with Heat's own chain.

Run them with :mod:`keel_heat_core.migrations.runner`.
"""
