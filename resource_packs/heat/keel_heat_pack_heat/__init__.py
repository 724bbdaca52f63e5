"""Heat-internal resource types (OS::Heat::*, AWS::CloudFormation::*)."""

__version__ = "0.1.0"
