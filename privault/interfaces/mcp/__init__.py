"""The MCP server: privault's tools for hosted agents, over stdio and streamable HTTP."""
