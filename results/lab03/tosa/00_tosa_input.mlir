module {
  func.func @matmul_bias_relu(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256xf32>) -> tensor<256x256xf32> attributes {lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %0 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %1 = tosa.const_shape  {values = dense<[1, 256, 256]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %2 = tosa.reshape %arg0, %1 : (tensor<256x256xf32>, !tosa.shape<3>) -> tensor<1x256x256xf32>
    %3 = tosa.const_shape  {values = dense<[1, 256, 256]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %4 = tosa.reshape %arg1, %3 : (tensor<256x256xf32>, !tosa.shape<3>) -> tensor<1x256x256xf32>
    %5 = tosa.matmul %2, %4, %0, %0 : (tensor<1x256x256xf32>, tensor<1x256x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x256x256xf32>
    %6 = tosa.const_shape  {values = dense<[1, 1, 256]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %7 = tosa.reshape %arg2, %6 : (tensor<256xf32>, !tosa.shape<3>) -> tensor<1x1x256xf32>
    %8 = tosa.add %5, %7 : (tensor<1x256x256xf32>, tensor<1x1x256xf32>) -> tensor<1x256x256xf32>
    %9 = tosa.clamp %8 {max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32} : (tensor<1x256x256xf32>) -> tensor<1x256x256xf32>
    %10 = tosa.const_shape  {values = dense<256> : tensor<2xindex>} : () -> !tosa.shape<2>
    %11 = tosa.reshape %9, %10 : (tensor<1x256x256xf32>, !tosa.shape<2>) -> tensor<256x256xf32>
    return %11 : tensor<256x256xf32>
  }
}
