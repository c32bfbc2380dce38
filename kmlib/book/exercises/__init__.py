"""Automatic checks for the book's exercises, one module per chapter (``ch01``, ``ch02``, ...).

A checker takes the student's answer, raises ``AssertionError`` with a hint when it
is wrong, and prints a one-line confirmation when it is right.
"""
