"""Asyncio tasks for the tasks page: a task named with markup awaits another, which pauses; once
continued, the first waits a minute (the test ends it). A sleeper beside them is there to be
cancelled from the page."""

import asyncio

import breakroom


async def inner():
    await breakroom.set_trace_async()
    return 1


async def outer():
    result = await asyncio.create_task(inner(), name="inner <b>task</b>")
    await asyncio.sleep(60)
    return result


async def main():
    sleeper = asyncio.create_task(asyncio.sleep(3600), name="sleeper <i>zz</i>")  # noqa: F841 (kept listed)
    result = await asyncio.create_task(outer(), name='<img src=x onerror="window.__pwned = 1">')
    print("result", result)


asyncio.run(main())
