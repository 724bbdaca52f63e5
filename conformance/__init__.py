"""The conformance harness: Heat's own test suites against keel-heat.

``python -m conformance`` (or ``tox -e conformance``) deploys keel-heat
for real (Keystone 30, MariaDB, RabbitMQ, the native and CFN APIs under
gunicorn, two engine workers), then runs heat-tempest-plugin's api and
functional tests and gophercloud's orchestration acceptance tests against
it, and closes with ``conformance: N passed, N failed, N skipped``.
See ``docs/design/conformance.md``.
"""
