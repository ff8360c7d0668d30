#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Starts a detached OS thread running `body`.
///
/// Blocking reads of pipes get a thread each, not a task: a task blocked in `read(2)` would hold
/// one of the few cooperative threads, and a thread wakes faster when its bytes arrive.
public func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
  final class Box {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  let box = Unmanaged.passRetained(Box(body)).toOpaque()
  #if canImport(Glibc)
    var thread = pthread_t()
  #else
    var thread: pthread_t?
  #endif
  let result = pthread_create(
    &thread, nil,
    { argument in
      let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
      box.body()
      return nil
    }, box)
  precondition(result == 0, "pthread_create failed: \(result)")
  pthread_detach(thread)
}
