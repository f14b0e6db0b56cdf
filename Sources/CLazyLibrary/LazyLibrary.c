#include "CLazyLibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

enum { notLoaded = 0, loaded = 1, failed = 2 };

/// "a or b": every soname tried, for the message.
static void list_sonames(const PinwatchLazyLibrary *library, char *text, size_t size) {
    size_t used = 0;
    text[0] = 0;
    for (const char *const *soname = library->sonames; *soname != NULL && used < size; soname++) {
        int written = snprintf(text + used, size - used, "%s%s", soname == library->sonames ? "" : " or ", *soname);
        if (written < 0) break;
        used += (size_t)written;
    }
}

static void open_and_resolve(PinwatchLazyLibrary *library) {
    void *handle = NULL;
    const char *opened = NULL;
    char why[256] = "";
    for (const char *const *soname = library->sonames; *soname != NULL && handle == NULL; soname++) {
        handle = dlopen(*soname, RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) {
            opened = *soname;
        } else if (why[0] == 0) {
            // The first failure explains best: later names are older fallbacks.
            snprintf(why, sizeof why, "%s", dlerror());
        }
    }
    if (handle == NULL) {
        char names[200];
        list_sonames(library, names, sizeof names);
        snprintf(library->failure, sizeof library->failure, "cannot load %s (%s): install %s", names, why,
                 library->package);
        atomic_store(&library->state, failed);
        return;
    }
    for (size_t index = 0; index < library->count; index++) {
        library->slots[index] = dlsym(handle, library->names[index]);
        if (library->slots[index] == NULL) {
            snprintf(library->failure, sizeof library->failure, "%s has no %s: a newer %s is needed", opened,
                     library->names[index], library->package);
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
