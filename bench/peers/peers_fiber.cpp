// peers_fiber.cpp - the ring and pipe shapes of lpel-bench (bench/lpel) in
// C++ with Boost.Fiber, fibers joined by buffered channels: a peer that
// bench/peers/run.sh runs beside LPEL on the same machine in the same
// invocation. Built by that script, not by the project's CMake build.
//
//   peers-fiber ring --ring-size K --rounds M  K fibers on one thread pass a token M times round
//   peers-fiber pipe --stages D --messages M   source, D-2 relays and a sink: the first half of
//                                             the stages on one thread, the rest on another
//
// Both print "ns_per_hop X", timed as lpel-bench times them: the ring from
// the end of the first lap to the start of the last, the pipe from the
// source's start to the sink's end. Fibers get 64 KiB stacks, as
// lpel-bench's tasks do.
#include <boost/fiber/all.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using channel = boost::fibers::buffered_channel<long>;
using clock_type = std::chrono::steady_clock;

constexpr std::size_t stack_bytes = 64 * 1024;

struct options {
    long tasks = 1000, rounds = 1000, depth = 100, messages = 100000, capacity = 16;
};

// Boost's buffered channel needs a power of two of at least 2, and holds
// one item less than that.
std::size_t channel_size(long capacity)
{
    std::size_t n = 2;
    while (n < static_cast<std::size_t>(capacity) + 1)
        n *= 2;
    return n;
}

boost::fibers::fiber spawn(std::function<void()> fn)
{
    return boost::fibers::fiber(std::allocator_arg,
                                boost::fibers::fixedsize_stack(stack_bytes), std::move(fn));
}

double ring(const options &o)
{
    std::vector<std::unique_ptr<channel>> links;
    for (long i = 0; i < o.tasks; i++)
        links.emplace_back(new channel(channel_size(o.capacity)));
    clock_type::time_point start, end;
    std::vector<boost::fibers::fiber> fibers;
    for (long i = 1; i < o.tasks; i++) {
        channel *in = links[i].get(), *out = links[(i + 1) % o.tasks].get();
        fibers.push_back(spawn([in, out, &o] {
            for (long r = 0; r < o.rounds; r++)
                out->push(in->value_pop());
        }));
    }
    channel *in = links[0].get(), *out = links[1 % o.tasks].get();
    fibers.push_back(spawn([in, out, &o, &start, &end] {
        out->push(1);
        for (long r = 0; r < o.rounds - 1; r++) {
            long v = in->value_pop();
            if (r == 0)
                start = clock_type::now();
            else if (r == o.rounds - 2)
                end = clock_type::now();
            out->push(v);
        }
        in->value_pop();
    }));
    for (auto &f : fibers)
        f.join();
    double ns = std::chrono::duration<double, std::nano>(end - start).count();
    return ns / (static_cast<double>(o.tasks) * static_cast<double>(o.rounds - 2));
}

// Stages [first, last) of the pipe, as fibers of the calling thread.
void pipe_half(std::vector<std::unique_ptr<channel>> &links, long first, long last,
               const options &o, clock_type::time_point &start, clock_type::time_point &end)
{
    std::vector<boost::fibers::fiber> fibers;
    for (long i = first; i < last; i++) {
        fibers.push_back(spawn([i, &links, &o, &start, &end] {
            if (i == 0) {
                start = clock_type::now();
                for (long m = 1; m <= o.messages; m++)
                    links[0]->push(m);
                links[0]->close();
                return;
            }
            channel *in = links[i - 1].get();
            channel *out = i < o.depth - 1 ? links[i].get() : nullptr;
            long v;
            while (in->pop(v) == boost::fibers::channel_op_status::success)
                if (out)
                    out->push(v);
            if (out)
                out->close();
            else
                end = clock_type::now();
        }));
    }
    for (auto &f : fibers)
        f.join();
}

double pipe(const options &o)
{
    std::vector<std::unique_ptr<channel>> links;
    for (long i = 0; i < o.depth - 1; i++)
        links.emplace_back(new channel(channel_size(o.capacity)));
    clock_type::time_point start, end;
    long half = o.depth / 2;
    std::thread second([&] { pipe_half(links, half, o.depth, o, start, end); });
    pipe_half(links, 0, half, o, start, end);
    second.join();
    double ns = std::chrono::duration<double, std::nano>(end - start).count();
    return ns / (static_cast<double>(o.messages) * static_cast<double>(o.depth - 1));
}

[[noreturn]] void usage()
{
    std::fprintf(stderr, "usage: peers-fiber ring|pipe [--ring-size K] [--rounds M] [--stages D] "
                         "[--messages M] [--capacity N]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2 || (std::strcmp(argv[1], "ring") && std::strcmp(argv[1], "pipe")))
        usage();
    options o;
    for (int i = 2; i + 1 < argc; i += 2) {
        char *end;
        long v = std::strtol(argv[i + 1], &end, 10);
        if (*end || v < 1)
            usage();
        std::string flag = argv[i];
        if (flag == "--ring-size") o.tasks = v;
        else if (flag == "--rounds") o.rounds = v;
        else if (flag == "--stages") o.depth = v;
        else if (flag == "--messages") o.messages = v;
        else if (flag == "--capacity") o.capacity = v;
        else usage();
    }
    if ((argc - 2) % 2 || o.tasks < 2 || o.rounds < 3 || o.depth < 2)
        usage();
    double ns = std::strcmp(argv[1], "ring") == 0 ? ring(o) : pipe(o);
    std::printf("ns_per_hop %.3f\n", ns);
    return 0;
}
