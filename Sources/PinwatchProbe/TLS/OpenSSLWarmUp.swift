internal import COpenSSL
import Glibc

/// OpenSSL's first use builds its providers' algorithm tables: about 10 M
/// instructions (a millisecond or more) in the serial start of a one-shot
/// cycle, before the first handshake. Done on a thread of its own while
/// the main thread reads the configuration, that work is over by the time
/// the trust bundle is parsed; OpenSSL's run-once locks make the main
/// thread wait for whatever is left. Not for `check`, whose measure is CPU
/// time, which a second thread only adds to.
///
/// `finish()` (or the end of the object) must come before the process
/// exits, so that OpenSSL's exit handler never runs beside the thread.
public final class OpenSSLWarmUp {
    private var thread: pthread_t?

    public init() {
        var created = pthread_t()
        let status = pthread_create(
            &created, nil,
            { _ in
                // A context of the kind the probes make fetches what their
                // handshakes and the certificate checks use.
                if let method = TLS_client_method(), let context = SSL_CTX_new(method) { SSL_CTX_free(context) }
                return nil
            }, nil)
        // Without the thread, the main thread does the same work itself.
        if status == 0 { thread = created }
    }

    public func finish() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    deinit { finish() }
}
