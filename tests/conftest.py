"""Test-wide set-up: kernels started by the tests get the grading environment."""

from kit.course import prepare_environment

prepare_environment()
