#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %cst = arith.constant 3.40282347E+38 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %expand_shape = memref.expand_shape %arg0 [[0, 1], [2]] output_shape [1, 256, 256] : memref<256x256xf32> into memref<1x256x256xf32>
    %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2]] output_shape [1, 256, 256] : memref<256x256xf32> into memref<1x256x256xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<1x256x256xf32>)
    linalg.batch_matmul ins(%expand_shape, %expand_shape_1 : memref<1x256x256xf32>, memref<1x256x256xf32>) outs(%alloc : memref<1x256x256xf32>)
    %expand_shape_2 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 256] : memref<256xf32> into memref<1x1x256xf32>
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%alloc, %expand_shape_2 : memref<1x256x256xf32>, memref<1x1x256xf32>) outs(%alloc_3 : memref<1x256x256xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %0 = arith.addf %in, %in_5 : f32
      linalg.yield %0 : f32
    }
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<1x256x256xf32>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%alloc_3 : memref<1x256x256xf32>) outs(%alloc_4 : memref<1x256x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.minimumf %in, %cst : f32
      %1 = arith.maximumf %0, %cst_0 : f32
      linalg.yield %1 : f32
    }
    %collapse_shape = memref.collapse_shape %alloc_4 [[0, 1], [2]] : memref<1x256x256xf32> into memref<256x256xf32>
    memref.copy %collapse_shape, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<1x256x256xf32>
    memref.dealloc %alloc_3 : memref<1x256x256xf32>
    memref.dealloc %alloc_4 : memref<1x256x256xf32>
    return
  }
}
