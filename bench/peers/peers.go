// peers.go - the ring and pipe shapes of lpel-bench (bench/lpel) in Go,
// goroutines joined by buffered channels: a peer that bench/peers/run.sh
// runs beside LPEL on the same machine in the same invocation. Built by
// that script, not by the project's CMake build.
//
//	peers-go ring --ring-size K --rounds M  K goroutines on one OS thread pass a token M times round
//	peers-go pipe --stages D --messages M   source, D-2 relays and a sink on two OS threads
//
// The flags are lpel-bench's (tools/snetmon/cli.h's table of flags).
//
// Both print "ns_per_hop X". The ring is timed as lpel-bench times it:
// from the end of the first lap (every goroutine has run once) to the
// start of the last (where the others end). The pipe is timed from the
// source's start to the sink's end. Go cannot place a goroutine on a given
// thread, so the pipe runs with GOMAXPROCS=2 and lets Go's scheduler
// spread the stages (lpel-bench places them in two halves).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"
)

func ring(tasks, rounds, capacity int) float64 {
	runtime.GOMAXPROCS(1)
	links := make([]chan int, tasks)
	for i := range links {
		links[i] = make(chan int, capacity)
	}
	var start, end time.Time
	done := make(chan bool)
	for i := 1; i < tasks; i++ {
		go func(in, out chan int) {
			for r := 0; r < rounds; r++ {
				out <- <-in
			}
		}(links[i], links[(i+1)%tasks])
	}
	go func(in, out chan int) {
		out <- 1
		for r := 0; r < rounds-1; r++ {
			v := <-in
			if r == 0 {
				start = time.Now()
			} else if r == rounds-2 {
				end = time.Now()
			}
			out <- v
		}
		<-in
		done <- true
	}(links[0], links[1%tasks])
	<-done
	return float64(end.Sub(start).Nanoseconds()) / float64(tasks*(rounds-2))
}

func pipe(depth, messages, capacity int) float64 {
	runtime.GOMAXPROCS(2)
	links := make([]chan int, depth-1)
	for i := range links {
		links[i] = make(chan int, capacity)
	}
	done := make(chan time.Time)
	for i := 1; i < depth-1; i++ {
		go func(in, out chan int) {
			for v := range in {
				out <- v
			}
			close(out)
		}(links[i-1], links[i])
	}
	go func(in chan int) {
		for range in {
		}
		done <- time.Now()
	}(links[depth-2])
	start := time.Now()
	go func(out chan int) {
		for i := 1; i <= messages; i++ {
			out <- i
		}
		close(out)
	}(links[0])
	end := <-done
	return float64(end.Sub(start).Nanoseconds()) / float64(messages*(depth-1))
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "ring" && os.Args[1] != "pipe") {
		fmt.Fprintln(os.Stderr, "usage: peers-go ring|pipe [--ring-size K] [--rounds M] [--stages D] [--messages M] [--capacity N]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	tasks := fs.Int("ring-size", 1000, "ring size")
	rounds := fs.Int("rounds", 1000, "ring rounds (>= 3)")
	depth := fs.Int("stages", 100, "pipe stages, source and sink included")
	messages := fs.Int("messages", 100000, "pipe messages")
	capacity := fs.Int("capacity", 16, "channel slots")
	fs.Parse(os.Args[2:])
	if *tasks < 2 || *rounds < 3 || *depth < 2 || *messages < 1 || *capacity < 1 {
		fmt.Fprintln(os.Stderr, "peers-go: needs --ring-size >= 2, --rounds >= 3, --stages >= 2, --messages >= 1, --capacity >= 1")
		os.Exit(2)
	}
	var ns float64
	if os.Args[1] == "ring" {
		ns = ring(*tasks, *rounds, *capacity)
	} else {
		ns = pipe(*depth, *messages, *capacity)
	}
	fmt.Printf("ns_per_hop %.3f\n", ns)
}
