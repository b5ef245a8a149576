"""Run inside a fresh interpreter: import every module of each SDK and answer real calls.

Usage: python sdk_smoke.py PLAN.json. The plan (written by the test) lists, per SDK, the
package name and calls to make with the JSON body the mock transport answers with.
Prints one line per SDK; exits non-zero on the first failure. Standard library + the SDKs only.
"""

import asyncio
import importlib
import inspect
import json
import pkgutil
import sys

import httpx


def main(plan_path):
    with open(plan_path, encoding="utf-8") as stream:
        plan = json.load(stream)
    for sdk in plan:
        package = importlib.import_module(sdk["package"])
        for info in pkgutil.walk_packages(package.__path__, sdk["package"] + "."):
            importlib.import_module(info.name)
        calls = 0
        for call in sdk["calls"]:
            body = call["response"]

            def handler(request, body=body):
                return httpx.Response(200, json=body)

            client = package.Client(
                base_url="http://sdk.test",
                transport=httpx.MockTransport(handler),
                **sdk["auth"],
            )
            method = getattr(getattr(client, call["resource"]), call["method"])
            result = method(*call["args"])
            assert result is not None and type(result).__name__ != "dict", (call, result)
            if hasattr(result, "to_dict"):
                result.to_dict()
            resource = getattr(client, call["resource"])
            raw = getattr(resource.with_raw_response, call["method"])(*call["args"])
            assert raw.status_code == 200 and raw.parse() is not None, call
            with getattr(resource.with_streaming_response, call["method"])(
                *call["args"]
            ) as streamed:
                assert type(streamed.parse()) is type(raw.parse()), call

            async def run_async(call=call, handler=handler, package=package, sdk=sdk):
                async with package.AsyncClient(
                    base_url="http://sdk.test",
                    transport=httpx.MockTransport(handler),
                    **sdk["auth"],
                ) as aclient:
                    resource = getattr(aclient, call["resource"])
                    raw = await getattr(resource.with_raw_response, call["method"])(*call["args"])
                    async with getattr(resource.with_streaming_response, call["method"])(
                        *call["args"]
                    ) as streamed:
                        assert type(await streamed.parse()) is type(raw.parse()), call
                    value = getattr(resource, call["method"])(*call["args"])
                    # A list operation's pager is made at once (AsyncPager), not awaited.
                    return await value if inspect.isawaitable(value) else value

            twin = type(asyncio.run(run_async())).__name__
            name = type(result).__name__
            assert twin in (name, "Async" + name.removeprefix("Sync")), (name, twin)
            calls += 1
        print(f"{sdk['package']}: ok ({calls} calls) on Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main(sys.argv[1])
