/* fuzz_model_tfindex.c: arbitrary bytes through the model reader (DL_MODEL_TF_INDEX) */
#include "fuzz_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_model(data, size, DL_MODEL_TF_INDEX);
}
