/* cli_backend.c: q4h_cli_backend (cli.h), apart from cli.c, whose parser the fuzzers
 * build alone, without the backends. */
#include "cli.h"

#include "backend_vulkan.h"
#include "backend_webgpu.h"

const q4h_backend_i *q4h_cli_backend(const q4h_cli *cli)
{
    return cli->api == Q4H_API_WEBGPU ? &q4h_backend_webgpu : &q4h_backend_vulkan;
}
