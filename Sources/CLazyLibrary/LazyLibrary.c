#include "CLazyLibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

enum { notLoaded = 0, loaded = 1, failed = 2 };

static void open_and_resolve(PinwatchLazyLibrary *library) {
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(library->failure, sizeof library->failure, "cannot load %s (%s): install %s", library->soname,
                 dlerror(), library->package);
        atomic_store(&library->state, failed);
        return;
    }
    for (size_t index = 0; index < library->count; index++) {
        library->slots[index] = dlsym(handle, library->names[index]);
        if (library->slots[index] == NULL) {
            snprintf(library->failure, sizeof library->failure, "%s has no %s: a newer %s is needed",
                     library->soname, library->names[index], library->package);
            atomic_store(&library->state, failed);
            return;
        }
    }
    atomic_store(&library->state, loaded);
}

const char *pinwatch_lazy_load(PinwatchLazyLibrary *library) {
    if (atomic_load(&library->state) == notLoaded) {
        pthread_mutex_lock(&library->lock);
        if (atomic_load(&library->state) == notLoaded) open_and_resolve(library);
        pthread_mutex_unlock(&library->lock);
    }
    return atomic_load(&library->state) == loaded ? NULL : library->failure;
}

void pinwatch_lazy_require(PinwatchLazyLibrary *library) {
    if (atomic_load_explicit(&library->state, memory_order_acquire) == loaded) return;
    const char *failure = pinwatch_lazy_load(library);
    if (failure != NULL) {
        fprintf(stderr, "pinwatch: %s\n", failure);
        abort();
    }
}
