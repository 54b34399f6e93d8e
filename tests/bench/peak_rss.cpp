// peak_rss: runs a program and reports its peak resident memory, for bench_large.py.
//
//     peak_rss REPORT PROGRAM [ARGS...]
//
// Writes "MAXRSS_KIB USER_S SYSTEM_S" to REPORT once PROGRAM exits and exits with its status
// (128 + the signal when a signal ended it). Why not os.wait4 from Python: Linux keeps a process's
// peak across exec (fs/exec.c folds the old address space's high-water mark into the process's
// ru_maxrss), and a child forked from the Python interpreter starts with the interpreter's ~14 MiB
// resident, so every process measured that way had a peak of at least 14 MiB. Forked from this
// small program, the floor is about 1 MiB (what /usr/bin/time shows for /bin/true).
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: peak_rss REPORT PROGRAM [ARGS...]\n");
        return 2;
    }
    const pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "peak_rss: fork: %s\n", std::strerror(errno));
        return 2;
    }
    if (child == 0) {
        execvp(argv[2], argv + 2);
        std::fprintf(stderr, "peak_rss: %s: %s\n", argv[2], std::strerror(errno));
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            std::fprintf(stderr, "peak_rss: wait4: %s\n", std::strerror(errno));
            return 2;
        }
    }
    std::FILE* report = std::fopen(argv[1], "w");
    if (report == nullptr) {
        std::fprintf(stderr, "peak_rss: %s: %s\n", argv[1], std::strerror(errno));
        return 2;
    }
    std::fprintf(report, "%ld %.6f %.6f\n", usage.ru_maxrss,
                 double(usage.ru_utime.tv_sec) + 1e-6 * double(usage.ru_utime.tv_usec),
                 double(usage.ru_stime.tv_sec) + 1e-6 * double(usage.ru_stime.tv_usec));
    std::fclose(report);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
