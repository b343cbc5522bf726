"""The MCP server (`ctx mcp`) and its tools."""
