// A fixed pool of worker threads for data-parallel loops over worlds.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace talon::runtime {

class ThreadPool {
 public:
  // `threads` workers in total, the calling thread included (so 1 = no extra thread).
  explicit ThreadPool(int threads);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls task(i) for every i in [0, count), spread over the threads; returns when all are
  // done. Tasks must not throw. One parallel_for at a time per pool.
  void parallel_for(int count, const std::function<void(int)>& task);

 private:
  void work();
  void run_tasks();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* task_ = nullptr;
  int count_ = 0, next_ = 0, finished_ = 0;
  long long generation_ = 0;
  bool stopping_ = false;
};

}  // namespace talon::runtime
