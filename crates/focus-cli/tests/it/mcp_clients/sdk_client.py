"""A client of `focus mcp serve` built on the official MCP Python SDK.

Usage: sdk_client.py stdio COMMAND CALLS_JSON
       sdk_client.py http URL TOKEN CALLS_JSON

Initializes, lists the tools, calls each tool named in CALLS_JSON (an object
of tool name to arguments; bash with a progress callback), and prints one
JSON report on stdout: the tools listed, with their annotations, and each
call's isError, text and the number of progress notifications it brought.
"""

import asyncio
import json
import sys

from mcp import ClientSession


def field(value, camel, snake):
    """A field by its 1.x (camelCase) or 2.x (snake_case) name."""
    if value is None:
        return None
    return getattr(value, camel, getattr(value, snake, None))


async def exercise(read, write, calls):
    report = {"tools": {}, "calls": {}}
    async with ClientSession(read, write) as session:
        init = await session.initialize()
        report["protocolVersion"] = field(init, "protocolVersion", "protocol_version")
        listed = await session.list_tools()
        for tool in listed.tools:
            notes = tool.annotations
            schema = field(tool, "inputSchema", "input_schema") or {}
            report["tools"][tool.name] = {
                "readOnlyHint": field(notes, "readOnlyHint", "read_only_hint"),
                "destructiveHint": field(notes, "destructiveHint", "destructive_hint"),
                "schemaType": schema.get("type"),
            }
        for name, arguments in calls.items():
            progress = []

            async def on_progress(value, total, message, progress=progress):
                progress.append(value)

            result = await session.call_tool(name, arguments, progress_callback=on_progress)
            text = "\n".join(block.text for block in result.content if block.type == "text")
            report["calls"][name] = {
                "isError": field(result, "isError", "is_error"),
                "text": text,
                "progress": len(progress),
            }
    return report


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        from mcp.client.stdio import StdioServerParameters, stdio_client

        calls = json.loads(sys.argv[3])
        params = StdioServerParameters(command=sys.argv[2], args=[])
        async with stdio_client(params) as streams:
            report = await exercise(streams[0], streams[1], calls)
    else:
        from mcp.client import streamable_http as http

        url, token, calls = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
        headers = {"Authorization": "Bearer " + token}
        if hasattr(http, "streamable_http_client"):
            client = http.create_mcp_http_client(headers=headers)
            opened = http.streamable_http_client(url, http_client=client)
        else:
            opened = http.streamablehttp_client(url, headers=headers)
        async with opened as streams:
            report = await exercise(streams[0], streams[1], calls)
    print(json.dumps(report))


asyncio.run(main())
