"""Interfaces: the CLI, the MCP server and the scheduler — the only code that reads the
environment and configuration, parses arguments and prints."""
